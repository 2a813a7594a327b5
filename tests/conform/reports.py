#!/usr/bin/env python3
"""CTest driver: `tpcheck conform --sarif` and `--markdown` (standard library only).

usage: reports.py TPCHECK FIXTURE_DIR SCENARIO

sarif_structure  every field SARIF 2.1.0 and code scanning need, on faulty
                 fixtures; each result at the line where Python's own ast
                 finds the function (a top-level function and a method), its
                 message the smallest case of the --json report
sarif_uris       URIs relative to --sarif-base (or the working directory),
                 absolute file:// URIs outside it, percent-encoding
markdown_table   one row per function and kind, as many cells in every row,
                 text with | and backticks escaped
baseline         with --baseline both report only the changed cases
outputs          '-' for standard output; bad paths are one line and exit 2,
                 before the run; files replaced whole, nothing left behind
"""
import ast
import json
import os
import re
import shutil
import sys
import tempfile
import urllib.parse
import urllib.request

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
from robustness import PORT_OFFSET_CHECKS, expect, expect_error, run, run_scenario, write  # noqa: E402 - beside this file

MORIIO = ["conform", "--profile", "vllm-moriio", "--max-tp", "8"]
LEVELS = {"error", "warning", "note", "none"}
KINDS = ["wrong_value", "wrong_error", "accepts_invalid", "rejects_valid", "crashed", "timed_out",
         # TensorRT-LLM's C++ transceiver (SPEC §15.2)
         "rank_out_of_range", "duality", "recv_from_nonsender", "send_unpicked", "missing_heads", "duplicate_source",
         "wrong_source"]


def faulty(fixtures, name, directory):
    sys.path.insert(0, fixtures)
    import faults  # noqa: E402 - the fixtures directory is only known at run time
    return faults.materialize(fixtures, name, directory)


def definition_line(path, qualified_name):
    """Where Python's ast puts `def NAME` (or `def Class.NAME`'s method); of
    two definitions, the last (the live one, as at import)."""
    with open(path, encoding="utf-8") as f:
        tree = ast.parse(f.read())
    *outer, name = qualified_name.split(".")
    body = tree.body
    for class_name in outer:
        body = next(n for n in body if isinstance(n, ast.ClassDef) and n.name == class_name).body
    return [n for n in body if isinstance(n, ast.FunctionDef) and n.name == name][-1].lineno


def reports(tpcheck, args, cwd, extra=()):
    """(exit, SARIF, Markdown, JSON) of one run each, same arguments."""
    code, out, err, _ = run(tpcheck, args + ["--sarif", "out.sarif", "--markdown", "out.md"] + list(extra), cwd=cwd)
    expect(code in (0, 1), "exit %d" % code, err)
    with open(os.path.join(cwd, "out.sarif"), encoding="utf-8") as f:
        sarif = json.load(f)
    with open(os.path.join(cwd, "out.md"), encoding="utf-8") as f:
        markdown = f.read()
    json_code, json_out, err, _ = run(tpcheck, args + ["--json"], cwd=cwd)
    expect(json_code == code, "the JSON run's exit %d differs from %d" % (json_code, code), err)
    return code, sarif, markdown, json.loads(json_out)


def resolve(sarif_run, location):
    """The file a result's artifactLocation names."""
    artifact = location["physicalLocation"]["artifactLocation"]
    uri = artifact["uri"]
    if "uriBaseId" in artifact:
        base = sarif_run["originalUriBaseIds"][artifact["uriBaseId"]]["uri"]
        expect(base.startswith("file:///") and base.endswith("/"), "a base URI is an absolute directory URI", base)
        expect(not uri.startswith(("/", "file:")), "a relative URI under a base", uri)
        uri = urllib.parse.urljoin(base, uri)
    expect(uri.startswith("file:///"), "an absolute location is a file URI", uri)
    return urllib.request.url2pathname(urllib.parse.urlparse(uri).path)


def check_sarif(sarif, report, cwd):
    """Every field code scanning reads, against the JSON report of the same run."""
    expect(sarif.get("version") == "2.1.0" and "sarif-schema-2.1.0" in sarif.get("$schema", ""), "version 2.1.0",
           sarif.get("version"), sarif.get("$schema"))
    expect(isinstance(sarif.get("runs"), list) and len(sarif["runs"]) == 1, "one run", sarif.get("runs"))
    sarif_run = sarif["runs"][0]
    driver = sarif_run["tool"]["driver"]
    expect(driver["name"] == "tpcheck" and re.fullmatch(r"\d+\.\d+\.\d+", driver["version"]), "the driver", driver)
    rules = driver["rules"]
    expect([r["id"] for r in rules] == KINDS, "one rule per deviation kind", [r["id"] for r in rules])
    for rule in rules:
        for field in ("shortDescription", "fullDescription", "help"):
            expect(len(rule[field]["text"]) > 20, "rule %s has its %s" % (rule["id"], field), rule)
        expect(rule["defaultConfiguration"]["level"] in LEVELS, "a SARIF level", rule)
    expect(len({r["help"]["text"] for r in rules}) == len(rules), "each kind has its own meaning", rules)
    expected_results = [(f["name"], d) for f in report["functions"] if f["status"] == "checked"
                        for d in f["deviations"]]
    results = sarif_run["results"]
    expect(len(results) == len(expected_results), "one result per function and kind",
           len(results), len(expected_results))
    functions = {f["name"]: f for f in report["functions"]}
    for result, (name, deviation) in zip(results, expected_results):
        f = functions[name]
        expect(result["ruleId"] == deviation["kind"], "ruleId is the kind", result["ruleId"], deviation["kind"])
        expect(rules[result["ruleIndex"]]["id"] == result["ruleId"], "ruleIndex points at the rule", result)
        expect(result["level"] in LEVELS, "a SARIF level", result["level"])
        text = result["message"]["text"]
        smallest = deviation["smallest"]
        for part in (smallest["call"], "expected: " + smallest["expected"], "actual:   " + smallest["actual"],
                     deviation["meaning"], "%d of %d cases" % (deviation["count"], f["cases"])):
            expect(part in text, "the message has %r" % part, text)
        (location,) = result["locations"]
        path = resolve(sarif_run, location)
        expect(os.path.samefile(path, os.path.join(cwd, f["file"])), "the location is the function's file",
               path, f["file"])
        line = definition_line(path, f["found"])
        expect(location["physicalLocation"]["region"]["startLine"] == line,
               "%s's result is at line %d, where ast finds it" % (f["found"], line), location)
        expect(result["partialFingerprints"]["tpcheckFunctionKind/v1"] == name + "/" + deviation["kind"],
               "a stable fingerprint", result["partialFingerprints"])
    return sarif_run


def sarif_structure(tpcheck, fixtures):
    with tempfile.TemporaryDirectory() as cwd:
        # A top-level function (MoRIIO's ack count: two kinds).
        path = os.path.relpath(faulty(fixtures, "moriio_upstream_ack_count", cwd), cwd)
        code, sarif, _, report = reports(tpcheck, MORIIO + [path], cwd)
        expect(code == 1, "deviations: exit 1", code)
        sarif_run = check_sarif(sarif, report, cwd)
        kinds = [(r["properties"]["function"], r["ruleId"], r["level"]) for r in sarif_run["results"]]
        expect(kinds == [("get_moriio_expected_ack_count", "wrong_value", "error"),
                         ("get_moriio_expected_ack_count", "accepts_invalid", "error")],
               "the fault's deviations, as errors", kinds)
        expect(sarif_run["invocations"][0]["exitCode"] == 1, "the exit status recorded", sarif_run["invocations"])
        # A method of a class in another file (NIXL's consumer count), and a
        # message that is only worded differently (a warning).
        utils = faulty(fixtures, "nixl_consumer_count_one", cwd)
        code, sarif, _, report = reports(tpcheck, ["conform", "--profile", "vllm-nixl", "--max-tp", "4",
                                                   "--function", "TransferTopology.dcp_consumer_count", utils], cwd)
        sarif_run = check_sarif(sarif, report, cwd)
        expect([r["properties"]["function"] for r in sarif_run["results"]] == ["TransferTopology.dcp_consumer_count"],
               "the method's result", sarif_run["results"])
        typo = os.path.relpath(faulty(fixtures, "moriio_message_typo", cwd), cwd)
        _, sarif, _, report = reports(tpcheck, MORIIO + [typo], cwd)
        levels = {r["ruleId"]: r["level"] for r in check_sarif(sarif, report, cwd)["results"]}
        expect(levels == {"wrong_error": "warning"}, "a wrong message is a warning", levels)
        # A clean run: no results, but every rule; the functions not found are noted.
        only_ports = write(cwd, "only_ports.py", "def get_port_offset(dp_rank, tp_rank, tp_size=1):\n" +
                           PORT_OFFSET_CHECKS.replace(" " * 16, " " * 4))
        code, sarif, _, report = reports(tpcheck, MORIIO + [only_ports], cwd)
        expect(code == 0 and check_sarif(sarif, report, cwd)["results"] == [], "a clean run has no results", sarif)
        notes = sarif["runs"][0]["invocations"][0]["toolExecutionNotifications"]
        expect(len(notes) == 4 and all(n["level"] == "note" and "skipped" in n["message"]["text"] for n in notes),
               "the functions left out are noted", notes)


def sarif_uris(tpcheck, fixtures):
    with tempfile.TemporaryDirectory() as top:
        repo = os.path.join(top, "repo")
        sub = os.path.join(repo, "sub dir", "énorme")
        os.makedirs(sub)
        inside = os.path.join(sub, "moriio #1.py")
        shutil.copy(faulty(fixtures, "moriio_upstream_ack_count", top), inside)
        outside = os.path.join(top, "elsewhere.py")
        shutil.copy(inside, outside)

        def uris(args, cwd):
            code, _, err, _ = run(tpcheck, MORIIO + ["--sarif", os.path.join(top, "u.sarif")] + args, cwd=cwd)
            expect(code == 1, "exit %d" % code, err)
            with open(os.path.join(top, "u.sarif"), encoding="utf-8") as f:
                sarif_run = json.load(f)["runs"][0]
            return sarif_run, [r["locations"][0] for r in sarif_run["results"]]

        # Relative to the working directory by default, the path given relative or absolute.
        for given in (os.path.relpath(inside, repo), inside):
            sarif_run, locations = uris([given], repo)
            artifact = locations[0]["physicalLocation"]["artifactLocation"]
            expect(artifact == {"uri": "sub%20dir/%C3%A9norme/moriio%20%231.py", "uriBaseId": "SRCROOT"},
                   "a percent-encoded URI relative to the working directory", artifact)
            expect(os.path.samefile(resolve(sarif_run, locations[0]), inside), "it resolves to the file", artifact)
        # Relative to --sarif-base; outside it, absolute.
        sarif_run, locations = uris(["--sarif-base", sub, inside], top)
        expect(locations[0]["physicalLocation"]["artifactLocation"]["uri"] == "moriio%20%231.py",
               "relative to --sarif-base", locations[0])
        sarif_run, locations = uris(["--sarif-base", sub, outside], top)
        artifact = locations[0]["physicalLocation"]["artifactLocation"]
        expect("uriBaseId" not in artifact and artifact["uri"] == "file://" + urllib.parse.quote(outside),
               "a file outside the base gets an absolute file URI", artifact)
        expect(os.path.samefile(resolve(sarif_run, locations[0]), outside), "it resolves to the file", artifact)


def table_rows(markdown):
    """The table's rows, each as its cells (split at unescaped |)."""
    rows = [line for line in markdown.splitlines() if line.startswith("|")]
    return [[c.strip() for c in re.split(r"(?<!\\)\|", row)[1:-1]] for row in rows]


def markdown_table(tpcheck, fixtures):
    with tempfile.TemporaryDirectory() as cwd:
        path = os.path.relpath(faulty(fixtures, "moriio_upstream_ack_count", cwd), cwd)
        _, _, markdown, report = reports(tpcheck, MORIIO + [path], cwd)
        rows = table_rows(markdown)
        expect(rows[0] == ["function", "cases", "deviations", "smallest case"], "the header", rows[0])
        expect(all(len(r) == 4 for r in rows), "four cells in every row", rows)
        expected = []
        for f in report["functions"]:
            first = "`%s` at `%s:%d`" % (f["found"], f["file"], f["line"])
            if not f["deviations"]:
                expected.append([first, str(f["cases"]), "none", ""])
            for k, d in enumerate(f["deviations"]):
                s = d["smallest"]
                expected.append([first if k == 0 else "", str(f["cases"]) if k == 0 else "",
                                 "%s: %d" % (d["kind"], d["count"]),
                                 "`%s`: expected `%s`, actual `%s`" % (s["call"], s["expected"], s["actual"])])
        expect(rows[2:] == expected, "a row per function, and per kind", rows[2:], expected)
        expect(markdown.startswith("### tpcheck conform, profile vllm-moriio: %d deviations in 1 of 5 functions\n"
                                   % report["deviations"]), "the title", markdown[:200])
        expect(all("- `get_moriio_expected_ack_count`, %s: %s" % (d["kind"], d["meaning"].replace("_", "\\_"))
                   in markdown for f in report["functions"] for d in f["deviations"]), "what each does", markdown)
        # Outcomes with the table's | and code spans' backticks stay in their cells.
        odd = write(cwd, "odd.py", '''
            def get_port_offset(dp_rank, tp_rank, tp_size=1):
                if tp_size <= 0:
                    raise ValueError("size `%d` | must | be ``positive``" % tp_size)
                return dp_rank * tp_size + tp_rank
        ''')
        _, _, markdown, report = reports(tpcheck, MORIIO + [odd], cwd)
        rows = table_rows(markdown)
        expect(all(len(r) == 4 for r in rows), "| inside a cell is escaped", markdown)
        row = next(r for r in rows if r[2].startswith("wrong_error"))
        # A space inside both ends of the fence, as a span that ends in a backtick needs.
        expect(row[3].endswith(", actual ``` ValueError: size `0` \\| must \\| be ``positive`` ```"),
               "the outcome in a fence longer than its backticks", row[3])
        skipped = [r for r in rows if r[1] == "skipped"]
        expect(len(skipped) == 4 and all("\\_" in r[3] or "_" not in r[3] for r in skipped),
               "skipped functions have a row with the reason, escaped", skipped)


def baseline(tpcheck, fixtures):
    with tempfile.TemporaryDirectory() as cwd:
        correct = os.path.join(fixtures, "moriio_correct.py")
        path = faulty(fixtures, "moriio_quorum_first_ranks", cwd)
        code, _, err, _ = run(tpcheck, MORIIO + ["--record", "base.txt", correct], cwd=cwd)
        expect(code == 0, "recorded", err)
        code, sarif, markdown, report = reports(tpcheck, MORIIO + ["--baseline", "base.txt", path], cwd)
        expect(code == 1, "a changed case deviates: exit 1", code)
        sarif_run = check_sarif(sarif, report, cwd)
        (changed,) = [f for f in report["functions"] if f.get("changes")]
        results = sarif_run["results"]
        expect([r["properties"]["function"] for r in results] == [changed["name"]] and
               sum(r["properties"]["count"] for r in results) == changed["changes"],
               "results only for the changed cases", results, changed)
        expect("changed since the baseline" in results[0]["message"]["text"], "the message says so", results[0])
        expect(sarif_run["properties"]["baseline"] == "base.txt", "the run names its baseline", sarif_run["properties"])
        rows = table_rows(markdown)
        expect(rows[0] == ["function", "cases", "changed", "deviations", "smallest case"], "a changed column", rows[0])
        expect(sorted(r[2] for r in rows[2:] if r[2]) == sorted(str(f["changes"]) for f in report["functions"]
                                                                if f["status"] == "checked"),
               "each function's changes", rows)
        expect("compared with the baseline `base.txt`: only cases whose outcome changed" in markdown, "the note",
               markdown)
        # The same code again: nothing changed, nothing reported.
        code, sarif, markdown, _ = reports(tpcheck, MORIIO + ["--baseline", "base.txt", correct], cwd)
        expect(code == 0 and sarif["runs"][0]["results"] == [], "no change: no result", sarif["runs"][0]["results"])
        expect("no deviations among the changed cases" in markdown, "the title says so", markdown[:200])


def outputs(tpcheck, fixtures):
    with tempfile.TemporaryDirectory() as cwd:
        correct = os.path.join(fixtures, "moriio_correct.py")
        args = MORIIO + ["--function", "get_port_offset", correct]
        code, out, err, _ = run(tpcheck, args + ["--sarif", "-"], cwd=cwd)
        expect(code == 0 and json.loads(out)["version"] == "2.1.0", "--sarif - prints the SARIF alone", out, err)
        code, out, err, _ = run(tpcheck, args + ["--markdown", "-", "--sarif", "s.sarif"], cwd=cwd)
        expect(code == 0 and out.startswith("### tpcheck conform") and os.path.isfile(os.path.join(cwd, "s.sarif")),
               "--markdown - prints the Markdown alone", out, err)
        # Replaced whole, no temporary file left beside it.
        for name in ("s.sarif", "m.md"):
            write(cwd, name, "old\n")
        code, _, err, _ = run(tpcheck, args + ["--sarif", "s.sarif", "--markdown", "m.md"], cwd=cwd)
        expect(code == 0 and sorted(os.listdir(cwd)) == ["m.md", "s.sarif"], "only the two files", os.listdir(cwd))
        with open(os.path.join(cwd, "s.sarif")) as f:
            json.load(f)
        # Bad paths and bad combinations: one line, exit 2, found before the run.
        os.mkdir(os.path.join(cwd, "a directory"))
        shutil.copy(correct, os.path.join(cwd, "connector.py"))
        shutil.copy(correct, os.path.join(cwd, "connector"))
        for bad, pattern in [
                # Python source is never overwritten by a report: by name, or as a file under test.
                (["--sarif", "connector.py"], r"--sarif 'connector\.py' is Python source, not a report file"),
                (["--markdown", "./connector.py"], r"--markdown '\./connector\.py' is Python source"),
                (["--record", "connector.py"], r"--record 'connector\.py' is Python source"),
                (["connector", "--sarif", "./connector"], r"--sarif '\./connector' is Python source"),
                (["--sarif", "no/such/dir/x.sarif"], r"--sarif cannot write 'no/such/dir/x\.sarif': No such file"),
                (["--markdown", "a directory"], r"--markdown cannot write 'a directory': Is a directory"),
                (["--sarif", "s.sarif/x"], r"--sarif cannot write 's\.sarif/x': Not a directory"),
                (["--sarif", "x.sarif", "--sarif-base", "no/such"], r"--sarif-base 'no/such' is not a directory"),
                (["--sarif-base", "."], r"--sarif-base is an option of --sarif"),
                (["--sarif", ""], r"--sarif needs a non-empty value"),
                (["--sarif", "-", "--markdown", "-"], r"only one of --json, --sarif - and --markdown -"),
                (["--json", "--sarif", "-"], r"only one of --json, --sarif - and --markdown -"),
                (["--sarif", "s.sarif", "--markdown", "s.sarif"], r"must be different files"),
                (["--sarif", "s.sarif", "--record", "s.sarif"], r"must be different files")]:
            result = run(tpcheck, args + bad, cwd=cwd)
            expect_error(result, 2, pattern)
            expect(result[3] < 5, "refused before the run", bad, result[3])
        for name in ("connector.py", "connector"):
            with open(os.path.join(cwd, name)) as copy, open(correct) as original:
                expect(copy.read() == original.read(), name + " is left as it was")
            os.remove(os.path.join(cwd, name))
        # A load error leaves the files as they were.
        write(cwd, "s.sarif", "old\n")
        expect_error(run(tpcheck, MORIIO + ["--sarif", "s.sarif", os.path.join(fixtures, "broken_syntax.py")],
                         cwd=cwd), 2, r"SyntaxError")
        with open(os.path.join(cwd, "s.sarif")) as f:
            expect(f.read() == "old\n", "the old file is kept on a load error")
        expect(sorted(os.listdir(cwd)) == ["a directory", "m.md", "s.sarif"], "nothing left behind", os.listdir(cwd))


if __name__ == "__main__":
    sys.exit(run_scenario(globals()))
