"""One rank of a run of mpi4py's own unit tests (the test/ directory of its sdist), through the
suite's own main.py, recording each test as it starts and ends in OUTDIR/rank-<rank>.txt, line
by line and flushed, so that run_mpi4py_suite.py knows which tests completed, with what outcome,
on which rank, even when the job crashes or hangs in the middle of one.

usage: python mpi4py_driver.py TESTDIR OUTDIR [main.py options, e.g. -i test_cco_ --xfile F]
Lines written: "start ID", "stop ID" around a test; "ok|fail|error|skip|xfail|xpass ID" for its
outcome (a failed subtest counts as "fail"); an error outside a test (setUpClass ...) as
"error ID" alone.
"""
import os
import sys
import unittest


class RecordingResult(unittest.TextTestResult):
    log = None

    def _record(self, what, test):
        if RecordingResult.log is None:
            from mpi4py import MPI  # initialised by main.py before any test runs
            rank = MPI.COMM_WORLD.Get_rank()
            path = os.path.join(OUTDIR, f"rank-{rank}.txt")
            RecordingResult.log = open(path, "a", buffering=1, encoding="utf-8")
        RecordingResult.log.write(f"{what} {test.id()}\n")
        RecordingResult.log.flush()

    def startTest(self, test):
        self._record("start", test)
        super().startTest(test)

    def stopTest(self, test):
        super().stopTest(test)
        self._record("stop", test)

    def addSuccess(self, test):
        super().addSuccess(test)
        self._record("ok", test)

    def addFailure(self, test, err):
        super().addFailure(test, err)
        self._record("fail", test)

    def addError(self, test, err):
        super().addError(test, err)
        self._record("error", test)

    def addSkip(self, test, reason):
        super().addSkip(test, reason)
        self._record("skip", test)

    def addExpectedFailure(self, test, err):
        super().addExpectedFailure(test, err)
        self._record("xfail", test)

    def addUnexpectedSuccess(self, test):
        super().addUnexpectedSuccess(test)
        self._record("xpass", test)

    def addSubTest(self, test, subtest, err):
        super().addSubTest(test, subtest, err)
        if err is not None:
            self._record("fail", test)


if __name__ == "__main__":
    TESTDIR, OUTDIR = sys.argv[1], sys.argv[2]
    sys.dont_write_bytecode = True
    sys.path.insert(0, TESTDIR)
    import main as mpi4py_tests  # the suite's own runner: its options, loader and MPI set-up

    runner = unittest.TextTestRunner(resultclass=RecordingResult, verbosity=1)
    mpi4py_tests.main(module=None, argv=[os.path.join(TESTDIR, "main.py")] + sys.argv[3:],
                      testRunner=runner)
