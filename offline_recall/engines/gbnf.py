"""A JSON schema as a GBNF grammar, for servers (llama.cpp's) that constrain output by grammar.

Covers what the scorers' output types use: objects (every property, in order), arrays with
item bounds, strings (with a minimum length or an enum), numbers, integers, booleans and
`$ref`s into `$defs`. Separators are `", "` and `": "`, as vLLM's structured outputs write them.
"""

from __future__ import annotations

import json
from typing import Any

from ..errors import ConfigurationError

_CHAR = r'[^"\\\x7F\x00-\x1F] | "\\" (["\\/bfnrt] | "u" [0-9a-fA-F]{4})'


def choice_grammar(answers: list[str]) -> str:
    """A grammar whose only sentences are the answers."""
    return "root ::= " + " | ".join(json.dumps(a) for a in answers)


def schema_grammar(schema: dict[str, Any]) -> str:
    """The grammar of the JSON texts that `schema` accepts."""
    rules: dict[str, str] = {"char": _CHAR}
    _Builder(schema, rules).rule("root", schema)
    return "\n".join(f"{name} ::= {body}" for name, body in rules.items())


class _Builder:
    def __init__(self, top: dict[str, Any], rules: dict[str, str]) -> None:
        self.top = top
        self.rules = rules

    def rule(self, name: str, schema: dict[str, Any]) -> str:
        self.rules[name] = self.body(name, schema)
        return name

    def body(self, name: str, schema: dict[str, Any]) -> str:
        if "$ref" in schema:
            ref = str(schema["$ref"])
            if not ref.startswith("#/$defs/"):
                raise ConfigurationError(f"unsupported $ref {ref} in a JSON schema")
            return self.body(name, self.top["$defs"][ref.removeprefix("#/$defs/")])
        if "enum" in schema:
            return " | ".join(json.dumps(json.dumps(v)) for v in schema["enum"])
        kind = schema.get("type")
        if kind == "object":
            parts = [
                f"{json.dumps(json.dumps(key) + ': ')} {self.rule(f'{name}-{i}', value)}"
                for i, (key, value) in enumerate(schema.get("properties", {}).items())
            ]
            return '"{" ' + ' ", " '.join(parts) + ' "}"' if parts else '"{}"'
        if kind == "array":
            item = self.rule(f"{name}-item", schema.get("items", {"type": "string"}))
            low, high = int(schema.get("minItems", 0)), schema.get("maxItems")
            rest = f"{max(0, low - 1)},{'' if high is None else int(high) - 1}"
            listed = f'{item} (", " {item}){{{rest}}}'
            return f'"[" {listed} "]"' if low > 0 else f'"[" ({listed})? "]"'
        if kind == "string":
            return '"\\"" char+ "\\""' if schema.get("minLength", 0) > 0 else '"\\"" char* "\\""'
        if kind == "integer":
            return '"-"? [0-9]+'
        if kind == "number":
            return '"-"? [0-9]+ ("." [0-9]+)? ([eE] [-+]? [0-9]+)?'
        if kind == "boolean":
            return '"true" | "false"'
        raise ConfigurationError(f"a JSON schema of type {kind!r} has no grammar here")
