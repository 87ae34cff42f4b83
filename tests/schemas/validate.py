#!/usr/bin/env python3
"""Validates JSON files against Post Studio's schemas (resources/schemas/, JSON Schema 2020-12).

  validate.py SCHEMA_DIR SCHEMA FILE...       e.g. validate.py resources/schemas post-graph-1 g.json
  validate.py SCHEMA_DIR SCHEMA=FILE...       each file against its own schema (one start for many)
  validate.py SCHEMA_DIR --check              every schema is itself a valid 2020-12 schema

Every schema of SCHEMA_DIR is registered under its $id, so post-session-1 finds the graph,
cluster and placement schemas it refers to. Exit 0: all valid; 1: a file or schema is
invalid (each error printed with its JSON path); 77: python3-jsonschema is missing (the
calling test skips).
"""
import json
import pathlib
import sys

try:
    import jsonschema
    from referencing import Registry, Resource
except ImportError as e:  # pragma: no cover - depends on the machine
    print(f"python3-jsonschema is not installed ({e})", file=sys.stderr)
    sys.exit(77)


def load_schemas(folder):
    schemas = {}
    for path in sorted(pathlib.Path(folder).glob("*.schema.json")):
        with open(path, encoding="utf-8") as f:
            schemas[path.name[: -len(".schema.json")]] = json.load(f)
    return schemas


def main(argv):
    if len(argv) < 3:
        print(__doc__, file=sys.stderr)
        return 2
    schemas = load_schemas(argv[1])
    if not schemas:
        print(f"no *.schema.json in {argv[1]}", file=sys.stderr)
        return 1
    if argv[2] == "--check":
        for name, schema in schemas.items():
            try:
                jsonschema.Draft202012Validator.check_schema(schema)
            except jsonschema.SchemaError as e:
                print(f"{name}: not a valid schema: {e.message}", file=sys.stderr)
                return 1
        print(f"{len(schemas)} schemas are valid")
        return 0
    if "=" in argv[2]:
        pairs = [tuple(a.split("=", 1)) for a in argv[2:]]
    else:
        pairs = [(argv[2], path) for path in argv[3:]]
    registry = Registry().with_resources(
        (s["$id"], Resource.from_contents(s)) for s in schemas.values())
    validators = {}
    failed = 0
    for name, path in pairs:
        if name not in schemas:
            print(f"no schema {name} (have: {', '.join(schemas)})", file=sys.stderr)
            return 1
        if name not in validators:
            validators[name] = jsonschema.Draft202012Validator(schemas[name], registry=registry)
        try:
            with open(path, encoding="utf-8") as f:
                instance = json.load(f)
        except (OSError, ValueError) as e:
            print(f"{path}: not JSON: {e}", file=sys.stderr)
            failed += 1
            continue
        errors = sorted(validators[name].iter_errors(instance), key=lambda e: list(e.absolute_path))
        for e in errors[:20]:
            where = "/".join(str(p) for p in e.absolute_path) or "(top)"
            print(f"{path}: {name}: {where}: {e.message}", file=sys.stderr)
        failed += bool(errors)
    print(f"{len(pairs) - failed} of {len(pairs)} files valid")
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
