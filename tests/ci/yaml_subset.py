"""A reader for the subset of YAML that action.yml, the example workflow and
.pre-commit-hooks.yaml are written in (standard library only, for the tests
that run them locally).

The subset: block mappings and block sequences by indentation (a sequence may
sit at its key's indentation), `- key: value` items, plain, 'single' and
"double" quoted scalars, literal block scalars (`|`, `|-`), folded ones of
evenly indented lines (`>`, `>-`), flow sequences of scalars (`[a, 'b']`),
and `#` comments. Every scalar stays a string, as GitHub reads action inputs.
Anything else (anchors, flow mappings, a folded scalar with blank or deeper
lines, tabs, a plain scalar with ': ' inside, duplicate keys) is an error
naming the line, so a file that drifts out of the subset fails its test
instead of being misread.
"""
import re


class YamlError(Exception):
    pass


class _Line:
    def __init__(self, number, indent, text):
        self.number, self.indent, self.text = number, indent, text


def _strip_comment(text):
    """The text before a comment (a # at the start or after a space, outside quotes)."""
    quote = None
    for i, c in enumerate(text):
        if quote:
            if c == quote:
                quote = None
        elif c in "'\"" and (i == 0 or text[i - 1] in " [,:"):
            quote = c
        elif c == "#" and (i == 0 or text[i - 1] == " "):
            return text[:i].rstrip()
    return text.rstrip()


def _scalar(text, number):
    text = text.strip()
    if text.startswith("'"):
        if len(text) < 2 or not text.endswith("'"):
            raise YamlError("line %d: unterminated single-quoted scalar" % number)
        return text[1:-1].replace("''", "'")
    if text.startswith('"'):
        if len(text) < 2 or not text.endswith('"'):
            raise YamlError("line %d: unterminated double-quoted scalar" % number)
        escapes = {"n": "\n", "t": "\t", '"': '"', "\\": "\\", "/": "/"}
        out, body, i = [], text[1:-1], 0
        while i < len(body):
            if body[i] == "\\":
                if i + 1 == len(body) or body[i + 1] not in escapes:
                    raise YamlError("line %d: unsupported escape in double-quoted scalar" % number)
                out.append(escapes[body[i + 1]])
                i += 2
            else:
                out.append(body[i])
                i += 1
        return "".join(out)
    if text[:1] in ("&", "*", "!", "{", ">", "%", "@", "`"):
        raise YamlError("line %d: %r is outside the YAML subset" % (number, text))
    if ": " in text or text.endswith(":"):
        raise YamlError("line %d: a plain scalar may not contain ': ' (quote it): %r" % (number, text))
    return text


def _flow_sequence(text, number):
    if not text.endswith("]"):
        raise YamlError("line %d: a flow sequence must end on its line" % number)
    body = text[1:-1].strip()
    if not body:
        return []
    if any(c in body for c in "[]{}"):
        raise YamlError("line %d: nested flow collections are outside the subset" % number)
    return [_scalar(item, number) for item in body.split(",")]


def _split_key(text, number):
    """(key, rest) of a mapping line, or None when the line is not one."""
    if text.startswith(("'", '"')):
        end = text.find(text[0], 1)
        if end < 0 or text[end + 1:end + 2] != ":" or text[end + 2:end + 3] not in ("", " "):
            return None
        return _scalar(text[:end + 1], number), text[end + 2:].strip()
    match = re.match(r"^([^\s'\"#\[\]{},][^:#]*?):(?: |$)(.*)$", text)
    if not match:
        return None
    return match.group(1).strip(), match.group(2).strip()


class _Parser:
    def __init__(self, text):
        self.raw = text.split("\n")
        self.lines = []
        for number, raw in enumerate(self.raw, 1):
            if "\t" in raw[:len(raw) - len(raw.lstrip())]:
                raise YamlError("line %d: tab in indentation" % number)
            content = _strip_comment(raw.lstrip(" "))
            if content in ("---",):
                continue
            if content:
                self.lines.append(_Line(number, len(raw) - len(raw.lstrip(" ")), content))
        self.pos = 0

    def peek(self):
        return self.lines[self.pos] if self.pos < len(self.lines) else None

    def block(self, indent):
        line = self.peek()
        if line is None or line.indent < indent:
            return None
        if line.text == "-" or line.text.startswith("- "):
            return self.sequence(line.indent)
        return self.mapping(line.indent)

    def sequence(self, indent):
        items = []
        while True:
            line = self.peek()
            if line is None or line.indent != indent or not (line.text == "-" or line.text.startswith("- ")):
                if line is not None and line.indent > indent:
                    raise YamlError("line %d: unexpected indentation" % line.number)
                return items
            rest = line.text[1:].strip()
            if not rest:
                self.pos += 1
                items.append(self.block(indent + 1))
                continue
            # "- key: value" opens a mapping whose keys sit at the item's column.
            column = indent + (len(line.text) - len(line.text[1:].lstrip()))
            if _split_key(rest, line.number) is not None:
                self.lines[self.pos] = _Line(line.number, column, rest)
                items.append(self.mapping(column))
            else:
                self.pos += 1
                items.append(self.value(rest, line, indent))

    def mapping(self, indent):
        result = {}
        while True:
            line = self.peek()
            if line is None or line.indent < indent:
                return result
            if line.indent > indent:
                raise YamlError("line %d: unexpected indentation" % line.number)
            if line.text == "-" or line.text.startswith("- "):
                return result  # a sequence at its parent key's indentation ends this mapping's key
            split = _split_key(line.text, line.number)
            if split is None:
                raise YamlError("line %d: expected 'key: value', got %r" % (line.number, line.text))
            key, rest = split
            if key in result:
                raise YamlError("line %d: duplicate key %r" % (line.number, key))
            self.pos += 1
            if rest:
                result[key] = self.value(rest, line, indent)
                continue
            following = self.peek()
            if following is not None and following.indent == indent and (
                    following.text == "-" or following.text.startswith("- ")):
                result[key] = self.sequence(indent)
            else:
                child = self.block(indent + 1)
                result[key] = "" if child is None else child

    def value(self, rest, line, indent):
        if rest in ("|", "|-"):
            return self.literal(line, indent, keep_last_newline=rest == "|")
        if rest in (">", ">-"):
            lines = self.literal(line, indent, keep_last_newline=False).split("\n")
            if any(not text or text.startswith(" ") for text in lines):
                raise YamlError("line %d: a folded scalar's lines must be evenly indented, none blank" % line.number)
            return " ".join(lines) + ("\n" if rest == ">" else "")
        if rest.startswith((">", "|")):
            raise YamlError("line %d: block scalar header %r is outside the subset" % (line.number, rest))
        if rest.startswith("["):
            return _flow_sequence(rest, line.number)
        return _scalar(rest, line.number)

    def literal(self, line, indent, keep_last_newline):
        """The raw lines after `line` indented deeper than `indent` (blank ones included)."""
        body, number = [], line.number  # line numbers are 1-based: raw[number] is the next line
        while number < len(self.raw):
            raw = self.raw[number]
            if raw.strip() and len(raw) - len(raw.lstrip(" ")) <= indent:
                break
            body.append(raw)
            number += 1
        while self.pos < len(self.lines) and self.lines[self.pos].number <= number:
            self.pos += 1
        while body and not body[-1].strip():
            body.pop()
        if not body:
            return ""
        block_indent = min(len(b) - len(b.lstrip(" ")) for b in body if b.strip())
        text = "\n".join(b[block_indent:] for b in body)
        return text + "\n" if keep_last_newline else text


def load(text):
    parser = _Parser(text)
    result = parser.block(0)
    line = parser.peek()
    if line is not None:
        raise YamlError("line %d: unexpected %r" % (line.number, line.text))
    return result


def load_file(path):
    with open(path, encoding="utf-8") as f:
        return load(f.read())
