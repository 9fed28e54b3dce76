#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-3.0-or-later
# Writes the reference trees' listings (tests/reference-trees/*.jsonl) from the simulated
# models, as the test that compares them would lay them out: run it after changing what a
# model lays out, and read the listings' diff before committing it.
set -euo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/../.."
PACER_WRITE_REFERENCE_TREES=1 cargo test --locked -p pacer-core --test machine_kinds \
  models_lay_out_the_reference_trees_file_for_file
git status --short -- tests/reference-trees
