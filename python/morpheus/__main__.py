# SPDX-License-Identifier: MIT
"""``python -m morpheus ARGS`` and the ``morpheus`` command pip installs: run the package's own
``morpheus`` executable (morpheus.binary) with ARGS."""
import os
import sys

from . import binary


def main():
    exe = binary("morpheus")
    if not exe:
        print("error: this morpheus package has no morpheus executable\nhint: it was built "
              "without LibTorch; reinstall it (pip install .)", file=sys.stderr)
        return 1
    os.execv(exe, [exe, *sys.argv[1:]])
    return 1


if __name__ == "__main__":
    sys.exit(main())
