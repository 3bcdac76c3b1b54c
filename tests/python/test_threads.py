"""Captures and other threads (issue 22.5): while one thread traces, another thread's plain tinygrad
work is neither refused nor recorded into the trace, and a second thread's tl.trace waits for the
first instead of failing."""

from __future__ import annotations

import threading
import time

import numpy as np

import tlconform as tl


def labels(trace):
    return [op.label for op in trace]


def chain(weight, bias):
    """A forward with many small steps, so another thread runs while it is being traced."""

    def forward(x):
        y = x.matmul(weight)
        for _ in range(40):
            y = (y + bias).relu() * 1.0
            time.sleep(0.002)  # hands the interpreter to the other thread
        return y

    return forward


def test_another_threads_eager_work_is_not_refused_nor_traced(tutorial):
    from tinygrad import Tensor

    forward, x = chain(tutorial["weight"], tutorial["bias"]), tutorial["x"]
    alone = tl.trace(forward, x)
    stop, errors, done = threading.Event(), [], []

    def eager():
        while not stop.is_set():
            try:
                done.append((Tensor([1.0, 2.0]) + 1).numpy())
            except BaseException as error:  # noqa: BLE001 - the test reports whatever it was
                errors.append(error)
                return

    worker = threading.Thread(target=eager)
    worker.start()
    try:
        while not done and worker.is_alive():
            time.sleep(0.01)
        traced = tl.trace(forward, x)
    finally:
        stop.set()
        worker.join(timeout=60)
    assert not errors, f"the other thread's eager .numpy() raised {errors[0]!r}"
    assert len(done) > 1, "the other thread ran no eager work while the forward was traced"
    assert all(np.array_equal(value, [2.0, 3.0]) for value in done)
    # The trace is the one a quiet process makes: no op renamed after the other thread's calls.
    assert labels(traced) == labels(alone)
    assert not [label for label in labels(traced) if label.startswith("numpy")]
    assert traced.validate_forward_pass([forward(x)]) is True


def test_a_second_concurrent_trace_waits_for_the_first(tutorial):
    weight, bias, x = tutorial["weight"], tutorial["bias"], tutorial["x"]
    spans, errors, traces = [], [], {}

    def slow(t):
        start = time.monotonic()
        out = (t.matmul(weight) + bias).relu()
        time.sleep(0.3)
        spans.append((start, time.monotonic()))
        return out

    def run(name):
        try:
            traces[name] = tl.trace(slow, x)
        except BaseException as error:  # noqa: BLE001
            errors.append(error)

    threads = [threading.Thread(target=run, args=(name,)) for name in ("first", "second")]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join(timeout=120)
    assert not errors, f"a concurrent trace failed: {errors[0]!r}"
    assert labels(traces["first"]) == labels(traces["second"])
    (a_start, a_end), (b_start, b_end) = sorted(spans)
    assert a_end <= b_start, "the two forwards ran at the same time"
    for trace in traces.values():
        assert trace.validate_forward_pass([slow(x)]) is True
