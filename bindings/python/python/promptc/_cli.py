"""The ``promptc`` command installed by the wheel: the same command line as the binary,
compiled into the extension module and run in this process."""

import signal
import sys

from promptc._promptc import run_cli


def main() -> None:
    # Ctrl-C ends the command at once, as it does the binary (Python's handler would only
    # run after the command returns).
    signal.signal(signal.SIGINT, signal.SIG_DFL)
    # The command writes to the process's stdout and stderr directly.
    sys.stdout.flush()
    sys.stderr.flush()
    raise SystemExit(run_cli(["promptc", *sys.argv[1:]]))


if __name__ == "__main__":
    main()
