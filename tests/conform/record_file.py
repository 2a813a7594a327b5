"""Reading a `tpcheck conform --record` file (standard library only)."""


def recorded_cases(record_path):
    """(function, arguments as written, outcome) of every case the file records, in order."""
    section = None
    with open(record_path) as f:
        for line in f:
            if line.startswith("@ "):
                section = line[2:].strip()
                continue
            if line.startswith("#") or "\t" not in line:
                continue
            args, outcome = line.rstrip("\n").split("\t", 1)
            yield section, args.split(","), outcome
