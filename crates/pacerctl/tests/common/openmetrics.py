# SPDX-License-Identifier: GPL-3.0-or-later
"""Parses a metrics exposition on stdin with prometheus_client's parsers and prints its
families as JSON for the test to check; refuses a series given twice.

With no argument the text is OpenMetrics, and prometheus_client's OpenMetrics parser refuses
what the specification forbids (a missing # EOF, a state set sample without its state label
or with a value other than 0 or 1, a unit that is not the name's suffix, a family's samples
apart). With --prometheus it is the Prometheus text format: prometheus_client's parser there
is lax, so the rules of node_exporter's parser (Go's expfmt) are checked here: a TYPE it
knows, at most one HELP and TYPE per family, before its samples."""

import json
import sys

try:
    from prometheus_client.openmetrics.parser import text_string_to_metric_families as openmetrics
    from prometheus_client.parser import text_string_to_metric_families as prometheus
except ImportError:
    sys.exit("python3-prometheus-client is missing: apt-get install python3-prometheus-client")

PROMETHEUS_TYPES = {"counter", "gauge", "summary", "histogram", "untyped"}


def check_prometheus(text):
    """The rules of expfmt's TextParser that prometheus_client's parser leaves out."""
    seen = {"HELP": set(), "TYPE": set()}
    sampled = set()
    for line in text.splitlines():
        if line.startswith("# HELP ") or line.startswith("# TYPE "):
            _, keyword, name, rest = line.split(" ", 3)
            if name in seen[keyword]:
                sys.exit(f"second {keyword} line for {name}")
            if keyword == "TYPE" and name in sampled:
                sys.exit(f"TYPE after samples for {name}")
            if keyword == "TYPE" and rest not in PROMETHEUS_TYPES:
                sys.exit(f"unknown metric type {rest!r} (node_exporter refuses the file)")
            seen[keyword].add(name)
        elif line and not line.startswith("#"):
            sampled.add(line.split("{")[0].split(" ")[0])


text = sys.stdin.read()
if sys.argv[1:] == ["--prometheus"]:
    check_prometheus(text)
    parse = prometheus
else:
    parse = openmetrics
families = []
for family in parse(text):
    seen = set()
    samples = []
    for sample in family.samples:
        series = (sample.name, tuple(sorted(sample.labels.items())))
        if series in seen:
            sys.exit(f"the series {series} is given twice")
        seen.add(series)
        samples.append({"name": sample.name, "labels": sample.labels, "value": sample.value})
    families.append(
        {
            "name": family.name,
            "type": family.type,
            "unit": family.unit,
            "help": family.documentation,
            "samples": samples,
        }
    )
print(json.dumps(families))
