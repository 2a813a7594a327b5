"""Runs a composite GitHub Action, and a workflow job that uses it, locally
and without network, the way the runner does (standard library only; the CI
tests use it).

What is modelled: an action's declared inputs (defaults, required, unknown
inputs refused); `${{ }}` substitution of context paths (inputs, matrix,
github.action_path, github.workspace, runner.temp, steps' outputs);
`if:` conditions (terms joined by `&&`: `==`, `!=`, quoted literals,
contexts, always()/success()/failure(), success() implied as on GitHub);
`run:` steps (`shell: bash`, required in an action, the default in a
workflow) run as `bash --noprofile --norc -eo pipefail FILE` in
`working-directory` with the step's `env:`, fresh GITHUB_OUTPUT and the job's
GITHUB_ENV, GITHUB_PATH and GITHUB_STEP_SUMMARY files, whose contents feed
later steps as on GitHub; `continue-on-error`. A `uses:` step runs a local
action when the job maps its name to a directory; any other must be in the
allow-list, is not run, and is recorded with its substituted `with:` for the
test to check. Anything else is an error, so the files cannot drift outside
what these tests prove.
"""
import os
import re
import subprocess

import yaml_subset

EXPRESSION = re.compile(r"\$\{\{\s*(.*?)\s*\}\}")
CONTEXT = re.compile(r"^[A-Za-z_][A-Za-z0-9_-]*(\.[A-Za-z_][A-Za-z0-9_-]*)*$")
STATUS_FUNCTIONS = ("always()", "success()", "failure()")
ACTION_STEP_KEYS = {"name", "id", "if", "shell", "run", "env", "working-directory", "uses", "with"}
WORKFLOW_STEP_KEYS = ACTION_STEP_KEYS | {"continue-on-error"}


class ActionError(Exception):
    """The file is outside what the runner models (a test failure)."""


class Result:
    def __init__(self):
        self.steps = []       # {"name", "outcome": success|failure|skipped, "stdout", "stderr", "uses", "with"}
        self.outputs = {}     # an action's outputs
        self.summary = ""     # GITHUB_STEP_SUMMARY
        self.success = True   # the job's (or action's) result

    def step(self, name):
        found = [s for s in self.steps if s["name"] == name]
        if len(found) != 1:
            raise ActionError("%d steps named %r" % (len(found), name))
        return found[0]

    def log(self):
        return "\n".join("== %s: %s\n%s%s" % (s["name"], s["outcome"], s.get("stdout", ""), s.get("stderr", ""))
                         for s in self.steps)


def lookup(path, context):
    parts = path.split(".")
    value = context
    for part in parts:
        if not isinstance(value, dict) or part not in value:
            if parts[0] == "steps" and len(parts) == 4 and parts[2] == "outputs":
                return ""  # an output a step did not set is empty, as on GitHub
            raise ActionError("unknown context %r" % path)
        value = value[part]
    if not isinstance(value, str):
        raise ActionError("context %r is not a string" % path)
    return value


def substitute(text, context):
    def replace(match):
        expression = match.group(1)
        if not CONTEXT.match(expression):
            raise ActionError("expression %r is more than a context path" % expression)
        return lookup(expression, context)
    return EXPRESSION.sub(replace, text)


def operand(text, context):
    text = text.strip()
    if len(text) >= 2 and text[0] == text[-1] == "'":
        return text[1:-1].replace("''", "'")
    if CONTEXT.match(text):
        return lookup(text, context)
    raise ActionError("operand %r outside the modelled expressions" % text)


def condition(text, context, ok_so_far):
    """An `if:` value; success() is implied unless a status function appears."""
    text = text.strip()
    match = EXPRESSION.fullmatch(text)
    if match:
        text = match.group(1)
    bare = text
    for f in STATUS_FUNCTIONS:
        bare = bare.replace(f, "")
    if "||" in text or "(" in bare or "!" in bare.replace("!=", ""):
        raise ActionError("condition %r outside the modelled expressions" % text)
    result = True if any(f in text for f in STATUS_FUNCTIONS) else ok_so_far
    for term in text.split("&&"):
        term = term.strip()
        if term == "always()":
            continue
        if term in ("success()", "failure()"):
            result = result and (ok_so_far if term == "success()" else not ok_so_far)
        elif "==" in term or "!=" in term:
            op = "==" if "==" in term else "!="
            left, right = term.split(op, 1)
            equal = operand(left, context) == operand(right, context)
            result = result and (equal if op == "==" else not equal)
        else:
            result = result and operand(term, context) != ""
    return result


def read_outputs(path):
    """NAME=VALUE lines and NAME<<DELIMITER blocks, as GitHub reads
    GITHUB_OUTPUT and GITHUB_ENV."""
    values = {}
    with open(path) as f:
        lines = f.read().split("\n")
    i = 0
    while i < len(lines):
        line = lines[i]
        i += 1
        if not line:
            continue
        if "<<" in line and ("=" not in line or line.index("<<") < line.index("=")):
            name, delimiter = line.split("<<", 1)
            body = []
            while i < len(lines) and lines[i] != delimiter:
                body.append(lines[i])
                i += 1
            if i == len(lines):
                raise ActionError("%s: %s<<%s has no closing delimiter" % (path, name, delimiter))
            i += 1
            values[name] = "\n".join(body)
        elif "=" in line:
            name, value = line.split("=", 1)
            values[name] = value
        else:
            raise ActionError("%s: malformed line %r" % (path, line))
    return values


class Job:
    """One job's runner state: its environment and files, shared by every
    step, including those of the actions it uses."""

    def __init__(self, workspace, environment, runner_temp, allowed_uses, local_actions):
        self.workspace, self.runner_temp = workspace, runner_temp
        self.allowed_uses, self.local_actions = set(allowed_uses), dict(local_actions)
        self.files = {name: os.path.join(runner_temp, "_" + name.lower())
                      for name in ("GITHUB_STEP_SUMMARY", "GITHUB_ENV", "GITHUB_PATH")}
        for path in self.files.values():
            open(path, "w").close()
        self.env = dict(environment)
        self.env.update({"GITHUB_WORKSPACE": workspace, "RUNNER_TEMP": runner_temp, "RUNNER_OS": "Linux",
                         "CI": "true", "GITHUB_ACTIONS": "true"})
        self.env.update(self.files)
        self.count = 0

    def summary(self):
        with open(self.files["GITHUB_STEP_SUMMARY"]) as f:
            return f.read()

    def run_steps(self, steps, context, result, keys, action_path=None):
        for index, step in enumerate(steps):
            unknown = set(step) - keys
            if unknown:
                raise ActionError("step %d has keys outside the model: %s" % (index, sorted(unknown)))
            record = {"name": step.get("name", step.get("uses", "step %d" % index)), "outcome": "skipped"}
            result.steps.append(record)
            if not condition(step.get("if", "success()"), context, result.success):
                continue
            if "uses" in step:
                self.uses(step, context, record)
            else:
                self.run(step, context, record, action_path)
            if "id" in step:
                context["steps"][step["id"]] = {"outputs": record.get("outputs", {}), "outcome": record["outcome"]}
            if record["outcome"] == "failure" and step.get("continue-on-error") != "true":
                result.success = False

    def uses(self, step, context, record):
        given = {k: substitute(v, context) for k, v in step.get("with", {}).items()}
        record.update(uses=step["uses"], **{"with": given})
        if step["uses"] in self.local_actions:
            inner = ActionRunner(self.local_actions[step["uses"]]).run_in(self, given)
            record.update(outcome="success" if inner.success else "failure", outputs=inner.outputs, action=inner,
                          stdout=inner.log(), stderr="")
            return
        if step["uses"] not in self.allowed_uses:
            raise ActionError("step %r uses %r, not one of %s" % (record["name"], step["uses"],
                                                                  sorted(self.allowed_uses)))
        record["outcome"] = "success"

    def run(self, step, context, record, action_path):
        if "run" not in step or step.get("shell", "bash") != "bash" or (action_path and "shell" not in step):
            raise ActionError("step %r: a run step with shell: bash (an action's must say so)" % record["name"])
        self.count += 1
        script = os.path.join(self.runner_temp, "step-%d.sh" % self.count)
        with open(script, "w") as f:
            f.write(substitute(step["run"], context))
        env = dict(self.env)
        if action_path:
            env["GITHUB_ACTION_PATH"] = action_path
        env.update({k: substitute(v, context) for k, v in step.get("env", {}).items()})
        env["GITHUB_OUTPUT"] = os.path.join(self.runner_temp, "_output_%d" % self.count)
        open(env["GITHUB_OUTPUT"], "w").close()
        cwd = os.path.join(self.workspace, substitute(step.get("working-directory", "."), context))
        p = subprocess.run(["bash", "--noprofile", "--norc", "-eo", "pipefail", script], cwd=cwd, env=env,
                           stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, timeout=600)
        record.update(outcome="success" if p.returncode == 0 else "failure", stdout=p.stdout, stderr=p.stderr,
                      exit_status=p.returncode, outputs=read_outputs(env["GITHUB_OUTPUT"]))
        self.env.update(read_outputs(self.files["GITHUB_ENV"]))
        open(self.files["GITHUB_ENV"], "w").close()
        with open(self.files["GITHUB_PATH"]) as f:
            added = [line.strip() for line in f if line.strip()]
        open(self.files["GITHUB_PATH"], "w").close()
        for directory in added:
            self.env["PATH"] = directory + os.pathsep + self.env["PATH"]


class ActionRunner:
    def __init__(self, action_dir):
        self.action_dir = os.path.abspath(action_dir)
        self.action = yaml_subset.load_file(os.path.join(self.action_dir, "action.yml"))
        if self.action.get("runs", {}).get("using") != "composite":
            raise ActionError("runs.using is not composite")
        self.inputs_declared = self.action.get("inputs", {})

    def resolve_inputs(self, given):
        unknown = sorted(set(given) - set(self.inputs_declared))
        if unknown:
            raise ActionError("inputs the action does not declare: %s" % ", ".join(unknown))
        inputs = {}
        for name, spec in self.inputs_declared.items():
            if name in given:
                inputs[name] = given[name]
            elif spec.get("required") == "true" and "default" not in spec:
                raise ActionError("required input %r not given" % name)
            else:
                inputs[name] = spec.get("default", "")
        return inputs

    def run_in(self, job, given_inputs):
        context = {"inputs": self.resolve_inputs(given_inputs), "steps": {},
                   "github": {"action_path": self.action_dir, "workspace": job.workspace},
                   "runner": {"temp": job.runner_temp}}
        result = Result()
        job.run_steps(self.action["runs"].get("steps", []), context, result, ACTION_STEP_KEYS, self.action_dir)
        for name, spec in self.action.get("outputs", {}).items():
            result.outputs[name] = substitute(spec.get("value", ""), context)
        return result

    def run(self, given_inputs, workspace, environment, allowed_uses, runner_temp):
        """The action alone, as the only step of a job; `runner_temp` is a new
        directory (RUNNER_TEMP), kept for the test to look into."""
        os.makedirs(runner_temp)
        job = Job(workspace, environment, runner_temp, allowed_uses, {})
        result = self.run_in(job, given_inputs)
        result.summary = job.summary()
        return result


def run_workflow_job(workflow, job_name, matrix, workspace, environment, allowed_uses, local_actions, event,
                     runner_temp):
    """One job of a parsed workflow, for one matrix entry; `event` is the
    github.event context, `runner_temp` a new directory (RUNNER_TEMP)."""
    job_spec = workflow["jobs"][job_name]
    os.makedirs(runner_temp)
    job = Job(workspace, environment, runner_temp, allowed_uses, local_actions)
    context = {"matrix": matrix, "steps": {}, "github": {"workspace": workspace, "event": event},
               "runner": {"temp": runner_temp}}
    result = Result()
    job.run_steps(job_spec["steps"], context, result, WORKFLOW_STEP_KEYS)
    result.summary = job.summary()
    return result
