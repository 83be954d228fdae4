"""Licence and citation: LICENSE, a valid CITATION.cff, and the same record in the footer, README and landing page."""
from __future__ import annotations

import json
import re
import tomllib
from pathlib import Path

import jsonschema
import yaml

ROOT = Path(__file__).resolve().parents[1]
# The Citation File Format 1.2.0 JSON schema, as published by the CFF project
# (citation-file-format/citation-file-format, schema.json of release 1.2.0; copied from cffconvert 2.0.0).
SCHEMA = ROOT / "tests" / "data" / "citation-file-format-1.2.0.schema.json"


def citation() -> dict:
    record = yaml.safe_load((ROOT / "CITATION.cff").read_text())
    return json.loads(json.dumps(record, default=str))  # dates as the strings the schema expects


def test_citation_cff_is_valid_cff_1_2_0():
    schema = json.loads(SCHEMA.read_text())
    record = citation()
    assert record["cff-version"] == "1.2.0"
    validator = jsonschema.Draft7Validator(schema, format_checker=jsonschema.Draft7Validator.FORMAT_CHECKER)
    errors = sorted(validator.iter_errors(record), key=str)
    assert not errors, "\n".join(f"{list(e.path)}: {e.message}" for e in errors)


def test_the_schema_refuses_a_broken_record():
    schema = json.loads(SCHEMA.read_text())
    broken = dict(citation())
    del broken["authors"]
    broken["license"] = "not-a-licence"
    assert len(list(jsonschema.Draft7Validator(schema).iter_errors(broken))) >= 2


def test_citation_agrees_with_the_package_and_the_config():
    record = citation()
    assert record["version"] == tomllib.loads((ROOT / "pyproject.toml").read_text())["project"]["version"]
    config = yaml.safe_load((ROOT / "_config.yml").read_text())
    assert record["title"] == config["title"]
    assert record["authors"] == [{"name": config["author"]}]
    assert set(record["license"]) == {"CC-BY-4.0", "MIT"}


def test_license_names_both_licences_and_what_each_covers():
    text = (ROOT / "LICENSE").read_text()
    assert "Creative Commons Attribution 4.0 International" in text and "creativecommons.org/licenses/by/4.0" in text
    assert "MIT License" in text and "Permission is hereby granted, free of charge" in text
    assert re.search(r"Text and figures", text) and re.search(r"Code", text)


def test_footer_readme_and_landing_page_name_the_licence_and_the_citation():
    config = yaml.safe_load((ROOT / "_config.yml").read_text())
    footer = config["html"]["extra_footer"]
    assert "CC BY 4.0" in footer and "MIT" in footer
    readme = (ROOT / "README.md").read_text()
    assert "CC BY 4.0" in readme and "MIT" in readme and "CITATION.cff" in readme
    intro = (ROOT / "book" / "intro.md").read_text()
    assert "## How to cite" in intro and "CC BY 4.0" in intro
    record = citation()
    cite = intro[intro.index("## How to cite"):]
    assert record["title"] in cite and record["version"] in cite and str(record["preferred-citation"]["year"]) in cite
