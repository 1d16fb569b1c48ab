# SPDX-License-Identifier: MIT
"""``python -m morpheus ARGS`` and the ``morpheus`` command pip installs: run the package's own
``morpheus`` executable (morpheus.binary) with ARGS.

``python -m morpheus hf-files TOKDIR...`` is the package's own command: it writes the files
``AutoTokenizer.from_pretrained`` reads into each tokenizer directory (morpheus.hf.write_hf_files;
needs transformers)."""
import os
import sys

from . import binary


def hf_files(args):
    if not args or any(a.startswith("-") for a in args):
        print("usage: python -m morpheus hf-files TOKDIR...\nwrites tokenizer_config.json, "
              "special_tokens_map.json and morpheus_tokenizer.py into each TOKDIR (for "
              "transformers' AutoTokenizer)", file=sys.stderr)
        return 0 if args and args[0] in ("-h", "--help") else 2
    from .hf import HF_FILES, write_hf_files

    for tokdir in args:
        try:
            written = write_hf_files(tokdir)
        except (OSError, RuntimeError, ValueError) as e:
            print(f"error: {tokdir}: {e}", file=sys.stderr)
            return 1
        state = "wrote " + ", ".join(os.path.basename(p) for p in written) if written else \
            "already up to date: " + ", ".join(HF_FILES)
        print(f"hf-files: {tokdir}: {state}", file=sys.stderr)
    return 0


def main():
    if sys.argv[1:2] == ["hf-files"]:
        return hf_files(sys.argv[2:])
    exe = binary("morpheus")
    if not exe:
        print("error: this morpheus package has no morpheus executable\nhint: it was built "
              "without LibTorch; reinstall it (pip install .)", file=sys.stderr)
        return 1
    os.execv(exe, [exe, *sys.argv[1:]])
    return 1


if __name__ == "__main__":
    sys.exit(main())
