#!/usr/bin/env python3
"""Runs the HLO conformance corpus through the reference evaluator.

For each case: converts inputs.npz to raw files, runs the `run_case` binary,
and compares its outputs with expected.npz using the case's tolerances (the
rules of the corpus README: integers/bools exact, nan matches nan, infs
exact, |got - want| <= atol + rtol * |want| otherwise).

usage: run_corpus.py RUN_CASE_BINARY [CORPUS_HLO_DIR] [-k SUBSTRING] [--allow-fail NAME ...]
The corpus folder defaults to $CONFORMANCE_DIR/hlo, else <repo>/../shared/conformance/hlo
(found from this file's real path); without a corpus it says so and exits 0.
Prints PASS/FAIL per case and a summary; exit status 1 if any case not listed
with --allow-fail failed (the known gaps are listed in BUILD.bazel).
"""
import json
import os
import subprocess
import sys
import tempfile

import warnings

import numpy as np

warnings.simplefilter("ignore", RuntimeWarning)  # inf - inf while comparing


def compare(got, want, rtol, atol):
    if got.shape != want.shape:
        return f"shape {got.shape} != {want.shape}"
    if want.dtype.kind in "biu":  # includes bf16 stored as uint16: compared bitwise
        if not np.array_equal(got, want):
            bad = np.argwhere(got != want)[:3].tolist()
            return f"mismatch at {bad}: got {got[tuple(bad[0])] if bad else ''} want {want[tuple(bad[0])] if bad else ''}"
        return None
    g = got.astype(np.complex128) if want.dtype.kind == "c" else got.astype(np.float64)
    w = want.astype(np.complex128) if want.dtype.kind == "c" else want.astype(np.float64)
    for part in ((g.real, w.real), (g.imag, w.imag)) if want.dtype.kind == "c" else ((g, w),):
        a, b = part
        nan_ok = np.isnan(a) == np.isnan(b)
        inf_ok = np.where(np.isinf(b), a == b, True)
        close = np.where(np.isnan(b) | np.isinf(b), True,
                         np.abs(a - b) <= atol + rtol * np.abs(b))
        ok = nan_ok & inf_ok & close
        if not ok.all():
            idx = tuple(np.argwhere(~ok)[0])
            return f"mismatch at {list(idx)}: got {a[idx]!r} want {b[idx]!r}"
    return None


def run_case(binary, case_dir):
    meta = json.load(open(os.path.join(case_dir, "case.json")))
    inputs = np.load(os.path.join(case_dir, "inputs.npz"))
    expected = np.load(os.path.join(case_dir, "expected.npz"))
    with tempfile.TemporaryDirectory() as tmp:
        args = []
        for spec in meta["inputs"]:
            arr = np.ascontiguousarray(inputs[spec["key"]])
            path = os.path.join(tmp, spec["key"] + ".bin")
            arr.astype(arr.dtype.newbyteorder("<")).tofile(path)
            args.append(path)
        proc = subprocess.run([binary, os.path.join(case_dir, "module.hlo"), tmp] + args,
                              capture_output=True, text=True, timeout=600)
        if proc.returncode != 0:
            return "ERROR " + proc.stderr.strip().splitlines()[-1] if proc.stderr else "ERROR"
        for i, spec in enumerate(meta["outputs"]):
            want = expected[spec["key"]]
            got = np.fromfile(os.path.join(tmp, f"out{i}.bin"), dtype=want.dtype).reshape(want.shape) \
                if want.size else np.zeros(want.shape, want.dtype)
            why = compare(got, want, meta.get("rtol", 0.0), meta.get("atol", 0.0))
            if why:
                return f"out{i}: {why}"
    return None


def main():
    argv = sys.argv[1:]
    pattern = None
    allowed = set()
    while "--allow-fail" in argv:
        i = argv.index("--allow-fail")
        allowed.add(argv[i + 1])
        del argv[i:i + 2]
    if "-k" in argv:
        i = argv.index("-k")
        pattern = argv[i + 1]
        del argv[i:i + 2]
    binary = argv[0]
    if len(argv) > 1:
        corpus = argv[1]
    elif os.environ.get("CONFORMANCE_DIR"):
        corpus = os.path.join(os.environ["CONFORMANCE_DIR"], "hlo")
    else:
        corpus = os.path.normpath(os.path.join(
            os.path.dirname(os.path.realpath(__file__)), "../../../../shared/conformance/hlo"))
    if not os.path.isdir(corpus):
        print(f"SKIPPED: no corpus at {corpus} (set CONFORMANCE_DIR)")
        return 0
    passed = failed = 0
    unexpected = []
    for name in sorted(os.listdir(corpus)):
        if pattern and pattern not in name:
            continue
        why = run_case(binary, os.path.join(corpus, name))
        if why:
            failed += 1
            print(f"FAIL {name}: {why}" + (" (known gap)" if name in allowed else ""))
            if name not in allowed:
                unexpected.append(name)
        else:
            passed += 1
            print(f"PASS {name}")
    print(f"{passed} passed, {failed} failed")
    if unexpected:
        print("unexpected failures: " + " ".join(unexpected))
    return 1 if unexpected else 0


if __name__ == "__main__":
    sys.exit(main())
