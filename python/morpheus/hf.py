# SPDX-License-Identifier: MIT
"""``morpheus.hf``: a tokenizer directory as a Hugging Face ``transformers`` tokenizer.

``MorpheusTokenizer`` is a ``transformers.PreTrainedTokenizer`` over the C++
``morpheus.Tokenizer``: the texts of a call are encoded by one ``encode_batch`` (the C++ batch
path), and everything after the ids is the library's own code: special tokens
(``build_inputs_with_special_tokens``), truncation with ``max_length``/``stride``/overflow
(``prepare_for_model``), padding, ``padding_side``, attention masks and tensors (``pad``).
A call that neither truncates nor pairs (``tok(texts)``, as in ``Dataset.map`` before a collator
pads, or with padding) skips ``prepare_for_model``, whose Python work per text costs more than
the C++ encoding itself: its ids go straight to ``pad()`` (without padding: a mask of ones).
``input_ids`` are those of ``morpheus.Tokenizer.encode`` (of ``morpheus encode``), and
``decode`` is the tokenizer's lossless decode: ``decode(tok(s)["input_ids"]) == s``.

Loading: ``AutoTokenizer.from_pretrained(TOKDIR)`` once ``morpheus.hf`` is imported (the class is
registered with ``AutoTokenizer``), or ``AutoTokenizer.from_pretrained(TOKDIR,
trust_remote_code=True)`` without importing morpheus: the directory's ``morpheus_tokenizer.py``
(written with its ``tokenizer_config.json`` and ``special_tokens_map.json`` by
``write_hf_files(TOKDIR)``, ``python -m morpheus hf-files TOKDIR`` or ``save_pretrained``) names
this class. Either way the ``morpheus`` package must be importable: the ids come from its C++
tokenizer.

Special tokens: ``pad_token``, ``bos_token``, ``eos_token`` and ``mask_token`` are the
directory's ``<pad>``, ``<s>``, ``</s>`` and ``<mask>`` (``morpheus tokenizer-info``), None where
the directory has none (padding then raises ValueError, as transformers does); its other special
tokens are ``additional_special_tokens``. There is no ``unk_token``: every text has ids (unknown
characters are byte tokens). By default no special token is added (the ids of ``morpheus
encode``); ``add_bos_token=True`` / ``add_eos_token=True`` (``from_pretrained`` keywords, saved by
``save_pretrained``) put ``<s>`` first and ``</s>`` last in every sequence, as ``morpheus encode
--add-bos --add-eos`` does. The vocabulary is fixed at export: ``add_tokens`` of a string
outside it raises ValueError (export with ``--special-tokens`` or ``--user-symbols`` instead).

``return_offsets_mapping=True`` gives per id its (begin, end) in the characters of its text,
from the C++ ``encode`` (case tokens, special tokens and padding (0, 0)); truncation and padding
move them with their ids. ``is_split_into_words=True`` encodes each word as its own text and
joins the ids (the offsets of a word's ids index that word, as fast tokenizers give them).

The class pickles (its ``morpheus.Tokenizer`` pickles as its directory and options and opens
again in the process that unpickles it), so ``datasets.Dataset.map(..., num_proc=N)`` and
DataLoader workers each use their own C++ object.
"""
import contextlib
import gc
import json
import os
import shutil
from typing import Any, Dict, List, Optional, Tuple

import numpy as np
from transformers import AutoConfig, AutoTokenizer, PretrainedConfig, PreTrainedTokenizer
from transformers.tokenization_utils_base import (BatchEncoding, PaddingStrategy, TensorType,
                                                   TruncationStrategy)

from . import Tokenizer
from ._tokenizer import HF_MODULE_SOURCE as _HF_MODULE_SOURCE

__all__ = ["MorpheusTokenizer", "MorpheusConfig", "write_hf_files", "HF_FILES"]

# The module file of a tokenizer directory that AutoTokenizer imports with
# trust_remote_code=True (tokenizer_config.json's auto_map names its class).
MODULE_FILE = "morpheus_tokenizer.py"
TOKENIZER_CONFIG_FILE = "tokenizer_config.json"
SPECIAL_TOKENS_MAP_FILE = "special_tokens_map.json"
# The files write_hf_files adds to a tokenizer directory (none of them is in morpheus.json's
# checksummed "files": the tokenizer loads and self-checks as before).
HF_FILES = (TOKENIZER_CONFIG_FILE, SPECIAL_TOKENS_MAP_FILE, MODULE_FILE)
AUTO_MAP = {"AutoTokenizer": ["morpheus_tokenizer.MorpheusTokenizer", None]}

# The module file transformers imports with trust_remote_code=True; the exporter writes the same
# (tokenizer/hf_files.h owns the text).
MODULE_SOURCE = _HF_MODULE_SOURCE

# The special tokens of a directory that transformers knows by role; the others are
# additional_special_tokens.
_ROLES = (("pad_token", "pad_id"), ("bos_token", "bos_id"), ("eos_token", "eos_id"),
          ("mask_token", "mask_id"))


class MorpheusConfig(PretrainedConfig):
    """The model type "morpheus", only so that AutoTokenizer knows MorpheusTokenizer once this
    module is imported (transformers registers tokenizers per configuration class)."""

    model_type = "morpheus"


class MorpheusTokenizer(PreTrainedTokenizer):
    """A Morpheus tokenizer directory as a transformers tokenizer; see the module's
    documentation. ``MorpheusTokenizer.from_pretrained(TOKDIR)`` or ``MorpheusTokenizer(path=
    TOKDIR)``; ``threads``: workers of the C++ ``encode_batch`` per call; ``self_test`` and
    ``cache_file``: those of ``morpheus.Tokenizer``."""

    vocab_files_names = {"morpheus_file": "morpheus.json"}
    model_input_names = ["input_ids", "attention_mask"]

    def __init__(self, morpheus_file: Optional[str] = None, path: Optional[str] = None,
                 threads: int = 1, add_bos_token: bool = False, add_eos_token: bool = False,
                 self_test: bool = True, cache_file: Optional[str] = None, **kwargs):
        if path is None:
            if morpheus_file is None:
                raise ValueError("MorpheusTokenizer needs a tokenizer directory: path=TOKDIR, or "
                                 "MorpheusTokenizer.from_pretrained(TOKDIR)")
            path = os.path.dirname(os.path.abspath(morpheus_file))
        self._tok = Tokenizer(path, self_test=self_test, cache_file=cache_file)
        self._threads = int(threads)
        self.add_bos_token = bool(add_bos_token)
        self.add_eos_token = bool(add_eos_token)
        self._pieces = [self._tok.id_to_piece(i) for i in range(self._tok.vocab_size)]
        self._vocab = {}
        for i, piece in enumerate(self._pieces):
            self._vocab.setdefault(piece, i)
        specials = list(self._tok.special_tokens)
        for role, id_name in _ROLES:
            i = getattr(self._tok, id_name)
            kwargs.setdefault(role, self._pieces[i] if i >= 0 else None)
        named = {kwargs[role] for role, _ in _ROLES}
        kwargs.setdefault("additional_special_tokens", [s for s in specials if s not in named])
        kwargs.setdefault("unk_token", None)
        kwargs.setdefault("clean_up_tokenization_spaces", False)
        super().__init__(threads=self._threads, add_bos_token=self.add_bos_token,
                         add_eos_token=self.add_eos_token, **kwargs)
        if self.add_bos_token and self.bos_token_id is None:
            raise ValueError(f"{path} has no <s> special token for add_bos_token=True")
        if self.add_eos_token and self.eos_token_id is None:
            raise ValueError(f"{path} has no </s> special token for add_eos_token=True")

    # The vocabulary: the directory's ids, fixed at export.

    @property
    def vocab_size(self) -> int:
        return self._tok.vocab_size

    @property
    def morpheus_tokenizer(self) -> Tokenizer:
        """The ``morpheus.Tokenizer`` under this class."""
        return self._tok

    def get_vocab(self) -> Dict[str, int]:
        return dict(self._vocab)

    def _add_tokens(self, new_tokens, special_tokens: bool = False) -> int:
        outside = [str(t) for t in new_tokens if str(t) not in self._vocab]
        if outside:
            raise ValueError(
                f"{outside} are not in the vocabulary of {self._tok.path} (its ids are fixed at "
                "export)\nhint: export with --special-tokens or --user-symbols including them")
        return super()._add_tokens(new_tokens, special_tokens=special_tokens)

    def _convert_token_to_id(self, token: str) -> Optional[int]:
        return self._vocab.get(token, self.unk_token_id)

    def _convert_id_to_token(self, index: int) -> str:
        return self._pieces[index]

    def tokenize(self, text: str, **kwargs) -> List[str]:
        """The pieces of ``morpheus.Tokenizer.encode(text)`` (bytes as ``<0xNN>``, case tokens as
        ``<cap>``/``<upper>``/``<upper_word>``); special token strings in the text are text."""
        return [self._pieces[i] for i in self._tok.encode(text)]

    def convert_tokens_to_string(self, tokens: List[str]) -> str:
        return self._tok.decode(self.convert_tokens_to_ids(tokens), skip_special_tokens=False)

    def _decode(self, token_ids, skip_special_tokens: bool = False,
                clean_up_tokenization_spaces: Optional[bool] = None, **kwargs) -> str:
        ids = [token_ids] if isinstance(token_ids, int) else token_ids
        text = self._tok.decode(ids, skip_special_tokens=skip_special_tokens)
        if clean_up_tokenization_spaces is None:
            clean_up_tokenization_spaces = self.clean_up_tokenization_spaces
        return self.clean_up_tokenization(text) if clean_up_tokenization_spaces else text

    # Special tokens: <s> and </s> around each sequence when add_bos_token / add_eos_token.

    def _around(self, ids: List[int]) -> List[int]:
        bos = [self.bos_token_id] if self.add_bos_token else []
        eos = [self.eos_token_id] if self.add_eos_token else []
        return bos + ids + eos

    def build_inputs_with_special_tokens(self, token_ids_0: List[int],
                                         token_ids_1: Optional[List[int]] = None) -> List[int]:
        out = self._around(list(token_ids_0))
        return out if token_ids_1 is None else out + self._around(list(token_ids_1))

    def get_special_tokens_mask(self, token_ids_0: List[int],
                                token_ids_1: Optional[List[int]] = None,
                                already_has_special_tokens: bool = False) -> List[int]:
        if already_has_special_tokens:
            return super().get_special_tokens_mask(token_ids_0, token_ids_1, True)
        bos = [1] if self.add_bos_token else []
        eos = [1] if self.add_eos_token else []
        mask = bos + [0] * len(token_ids_0) + eos
        return mask if token_ids_1 is None else mask + bos + [0] * len(token_ids_1) + eos

    def create_token_type_ids_from_sequences(self, token_ids_0: List[int],
                                             token_ids_1: Optional[List[int]] = None
                                             ) -> List[int]:
        first = [0] * len(self._around(list(token_ids_0)))
        return first if token_ids_1 is None else first + [1] * len(self._around(list(token_ids_1)))

    # Encoding: the ids of every text of the call from one C++ encode_batch, then the library's
    # prepare_for_model (special tokens, truncation) per sequence and pad() for the batch; texts
    # the library would neither cut nor pair skip prepare_for_model (_encode_bare).

    def _encode_plus(self, text, text_pair=None, return_tensors=None,
                     return_overflowing_tokens: bool = False, **kwargs) -> BatchEncoding:
        out = self._encode_pairs([(text, text_pair)], return_tensors=return_tensors,
                                 return_overflowing_tokens=return_overflowing_tokens, **kwargs)
        if return_tensors is None:
            # One sequence: no batch axis, as the library's prepare_for_model gives it (the
            # overflow, with return_overflowing_tokens, is its "overflowing_tokens").
            out = BatchEncoding({k: (v[0] if len(v) > 0 and isinstance(v[0], list) else v)
                                 for k, v in out.items()})
        return out

    def _batch_encode_plus(self, batch_text_or_text_pairs, is_split_into_words: bool = False,
                           **kwargs) -> BatchEncoding:
        if not is_split_into_words and set(map(type, batch_text_or_text_pairs)) <= {str}:
            return self._encode_pairs(None, texts=list(batch_text_or_text_pairs), **kwargs)
        pairs = []
        for item in batch_text_or_text_pairs:
            if not isinstance(item, (list, tuple)) or (
                    is_split_into_words and not isinstance(item[0], (list, tuple))):
                pairs.append((item, None))
            else:
                first, second = item
                pairs.append((first, second))
        return self._encode_pairs(pairs, is_split_into_words=is_split_into_words, **kwargs)

    def _encode_pairs(self, pairs, texts=None, add_special_tokens: bool = True,
                      padding_strategy=PaddingStrategy.DO_NOT_PAD, truncation_strategy=None,
                      max_length: Optional[int] = None, stride: int = 0,
                      is_split_into_words: bool = False, pad_to_multiple_of: Optional[int] = None,
                      padding_side: Optional[str] = None, return_tensors=None,
                      return_token_type_ids: Optional[bool] = None,
                      return_attention_mask: Optional[bool] = None,
                      return_overflowing_tokens: bool = False,
                      return_special_tokens_mask: bool = False,
                      return_offsets_mapping: bool = False, return_length: bool = False,
                      verbose: bool = True, split_special_tokens: bool = False,
                      **kwargs) -> BatchEncoding:
        # (first, second or None) pairs of texts, word lists or ids, or texts alone (pairs
        # None); split_special_tokens has no effect (special token strings in a text are always
        # text).
        if kwargs:
            raise TypeError(f"MorpheusTokenizer: unexpected keyword arguments {sorted(kwargs)}")
        bare = (truncation_strategy in (None, TruncationStrategy.DO_NOT_TRUNCATE)
                and not (return_overflowing_tokens or return_special_tokens_mask or return_length
                         or return_token_type_ids)
                and not (return_offsets_mapping and add_special_tokens
                         and (self.add_bos_token or self.add_eos_token))
                and (texts is not None or all(isinstance(a, str) and b is None
                                              for a, b in pairs)))
        if bare:
            if texts is None:
                texts = [a for a, _ in pairs]
            return self._encode_bare(texts, add_special_tokens, padding_strategy,
                                     max_length, pad_to_multiple_of, padding_side, return_tensors,
                                     return_attention_mask, return_offsets_mapping, verbose)
        if pairs is None:
            pairs = [(t, None) for t in texts]
        encoded = _BatchTexts(self, is_split_into_words, return_offsets_mapping)
        slots = [(encoded.add(first), None if second is None else encoded.add(second))
                 for first, second in pairs]
        encoded.run()
        truncation = truncation_strategy.value if truncation_strategy is not None else None
        options = dict(add_special_tokens=add_special_tokens, truncation=truncation,
                       max_length=max_length, stride=stride)
        batch_outputs: Dict[str, List[Any]] = {}
        for first, second in slots:
            ids_0 = encoded.ids(first)
            ids_1 = None if second is None else encoded.ids(second)
            outputs = self.prepare_for_model(
                ids_0, ids_1, padding=PaddingStrategy.DO_NOT_PAD.value, pad_to_multiple_of=None,
                padding_side=None, return_attention_mask=False,
                return_token_type_ids=return_token_type_ids,
                return_overflowing_tokens=return_overflowing_tokens,
                return_special_tokens_mask=return_special_tokens_mask,
                return_length=return_length, return_tensors=None, prepend_batch_axis=False,
                verbose=verbose, **options)
            if return_offsets_mapping:
                outputs["offset_mapping"] = self._offsets_through(encoded, first, second,
                                                                  options)
            for key, value in outputs.items():
                batch_outputs.setdefault(key, []).append(value)
        if not slots:
            batch_outputs["input_ids"] = []
        batch_outputs = self.pad(batch_outputs, padding=padding_strategy.value,
                                 max_length=max_length, pad_to_multiple_of=pad_to_multiple_of,
                                 padding_side=padding_side,
                                 return_attention_mask=return_attention_mask)
        return BatchEncoding(_rectangular_to_numpy(batch_outputs, return_tensors),
                             tensor_type=return_tensors)

    def _encode_bare(self, texts, add_special_tokens, padding_strategy, max_length,
                     pad_to_multiple_of, padding_side, return_tensors, return_attention_mask,
                     return_offsets_mapping, verbose) -> BatchEncoding:
        # Texts that the library would neither cut nor join into pairs: its prepare_for_model
        # would return the ids with the special tokens of build_inputs_with_special_tokens
        # (<s>/</s>, which the C++ encode adds identically), so they go from one encode_batch
        # straight to the library's pad() (without padding: a mask of ones), without the Python
        # work per text (tests/python/test_hf.py checks it against the general path).
        special = bool(add_special_tokens)
        # Without padding the mask (ones) comes from the C++ call with the ids; padded, from the
        # library's pad().
        unpadded = padding_strategy == PaddingStrategy.DO_NOT_PAD
        if unpadded and return_attention_mask is None:
            return_attention_mask = "attention_mask" in self.model_input_names
        with_mask = unpadded and bool(return_attention_mask)
        with _gc_paused():
            out = self._tok.encode_batch(texts, threads=self._threads,
                                         add_bos=special and self.add_bos_token,
                                         add_eos=special and self.add_eos_token,
                                         return_offsets=bool(return_offsets_mapping),
                                         return_attention_mask=with_mask)
        dict_out = with_mask or return_offsets_mapping
        ids = out["input_ids"] if dict_out else out
        result = {"input_ids": ids}
        if return_offsets_mapping:
            result["offset_mapping"] = out["offsets"]
        if ids:
            self._eventual_warn_about_too_long_sequence(max(ids, key=len), None, verbose)
        if not unpadded:
            with _gc_paused():
                result = self.pad(result, padding=padding_strategy.value, max_length=max_length,
                                  pad_to_multiple_of=pad_to_multiple_of,
                                  padding_side=padding_side,
                                  return_attention_mask=return_attention_mask)
        elif with_mask:
            result["attention_mask"] = out["attention_mask"]
        return BatchEncoding(_rectangular_to_numpy(result, return_tensors),
                             tensor_type=return_tensors)

    def _offsets_through(self, encoded, first, second, options) -> List[Tuple[int, int]]:
        # The library's prepare_for_model again, on the positions of the ids (coded above every
        # id) instead of the ids: what it keeps, cuts and surrounds with special tokens is
        # positional, so the positions it returns are those of the ids it returned.
        spans = encoded.offsets(first) + ([] if second is None else encoded.offsets(second))
        base = len(self._pieces)
        coded_0 = list(range(base, base + len(encoded.offsets(first))))
        coded_1 = None if second is None else list(range(base + len(coded_0), base + len(spans)))
        coded = self.prepare_for_model(coded_0, coded_1, verbose=False,
                                       return_attention_mask=False, **options)["input_ids"]
        return [spans[c - base] if c >= base else (0, 0) for c in coded]

    def _pad(self, encoded_inputs, max_length=None, padding_strategy=PaddingStrategy.DO_NOT_PAD,
             pad_to_multiple_of=None, padding_side=None, return_attention_mask=None) -> dict:
        # The library's padding, and offset_mapping padded with (0, 0) on the same side (the
        # library pads it only for fast tokenizers).
        offsets = encoded_inputs.pop("offset_mapping", None)
        out = super()._pad(encoded_inputs, max_length=max_length,
                           padding_strategy=padding_strategy,
                           pad_to_multiple_of=pad_to_multiple_of, padding_side=padding_side,
                           return_attention_mask=return_attention_mask)
        if offsets is not None:
            filler = [(0, 0)] * (len(out[self.model_input_names[0]]) - len(offsets))
            side = padding_side if padding_side is not None else self.padding_side
            out["offset_mapping"] = (list(offsets) + filler if side == "right"
                                     else filler + list(offsets))
        return out

    # Saving: the tokenizer directory's files, and this class's module file for AutoTokenizer
    # with trust_remote_code=True (tokenizer_config.json's auto_map, set by save_pretrained from
    # _auto_map).

    _auto_map = AUTO_MAP

    def save_vocabulary(self, save_directory: str,
                        filename_prefix: Optional[str] = None) -> Tuple[str, ...]:
        if filename_prefix:
            raise ValueError("MorpheusTokenizer saves a whole tokenizer directory: no "
                             "filename_prefix")
        source = os.path.realpath(self._tok.path)
        target = os.path.realpath(save_directory)
        if source != target:
            shutil.copytree(source, target, dirs_exist_ok=True,
                            ignore=shutil.ignore_patterns(*HF_FILES, "added_tokens.json"))
        module = os.path.join(target, MODULE_FILE)
        _write_if_changed(module, MODULE_SOURCE)
        return (os.path.join(target, "morpheus.json"), module)

    def __repr__(self) -> str:
        return (f"MorpheusTokenizer(path={self._tok.path!r}, vocab_size={self.vocab_size}, "
                f"add_bos_token={self.add_bos_token}, add_eos_token={self.add_eos_token}, "
                f"padding_side={self.padding_side!r})")


class _BatchTexts:
    """The texts of one call, encoded by one C++ encode_batch; add() gives a slot, ids() and
    offsets() its ids and spans after run(). A slot holds a text, a list of words
    (is_split_into_words: each word a text) or ids / tokens given by the caller."""

    def __init__(self, tok: MorpheusTokenizer, split_into_words: bool, with_offsets: bool):
        self._tok = tok
        self._split = split_into_words
        self._with_offsets = with_offsets
        self._texts: List[str] = []
        self._slots: List[Tuple[str, Any]] = []
        self._ids: List[List[int]] = []
        self._spans: List[List[Tuple[int, int]]] = []

    def add(self, value) -> int:
        if isinstance(value, str):
            self._slots.append(("texts", [len(self._texts)]))
            self._texts.append(value)
        elif isinstance(value, (list, tuple)) and (not value or isinstance(value[0], str)):
            if self._split:
                self._slots.append(("texts", list(range(len(self._texts),
                                                        len(self._texts) + len(value)))))
                self._texts.extend(value)
            else:
                self._slots.append(("ids", self._tok.convert_tokens_to_ids(list(value))))
        elif isinstance(value, (list, tuple)) and isinstance(value[0], int):
            self._slots.append(("ids", list(value)))
        else:
            raise ValueError(f"input {value!r} is not valid: a string, a list of strings or a "
                             "list of ids")
        return len(self._slots) - 1

    def run(self) -> None:
        native = self._tok.morpheus_tokenizer
        threads = self._tok._threads
        if self._with_offsets:
            out = native.encode_batch(self._texts, threads=threads, return_offsets=True)
            self._ids, self._spans = out["input_ids"], out["offsets"]
        else:
            self._ids = native.encode_batch(self._texts, threads=threads)

    def ids(self, slot: int) -> List[int]:
        kind, value = self._slots[slot]
        if kind == "ids":
            return value
        if len(value) == 1:
            return list(self._ids[value[0]])
        return [i for t in value for i in self._ids[t]]

    def offsets(self, slot: int) -> List[Tuple[int, int]]:
        kind, value = self._slots[slot]
        if kind == "ids":
            raise ValueError("return_offsets_mapping=True needs texts, not ids or tokens")
        return [tuple(span) for t in value for span in self._spans[t]]


@contextlib.contextmanager
def _gc_paused():
    # The lists of ids and masks of a batch hold ints only (no cycles), but creating millions of
    # them runs the cyclic collector over and over (a third of a large batch's time), and
    # re-enabling it after a pause would traverse them all at the next allocation. So the
    # collector is off while they are made, and freeze() + unfreeze() then moves the objects
    # tracked so far to the oldest generation without traversing them (the next full collection
    # looks at them, as at any long-lived object).
    enabled = gc.isenabled()
    gc.disable()
    try:
        yield
    finally:
        gc.freeze()
        gc.unfreeze()
        if enabled:
            gc.enable()


def _rectangular_to_numpy(result, return_tensors):
    # BatchEncoding's numpy conversion flattens every row in Python to see whether the batch is
    # empty (most of the time of a padded call); rows of one length, not empty, are converted
    # here as it then converts them (np.asarray). Anything else is left to it.
    if return_tensors not in ("np", TensorType.NUMPY):
        return result
    for key, value in result.items():
        if (isinstance(value, list) and value and isinstance(value[0], list) and value[0]
                and len({len(row) for row in value}) == 1):
            result[key] = np.asarray(value)
    return result


def _write_if_changed(path: str, text: str) -> bool:
    try:
        with open(path, encoding="utf-8") as f:
            if f.read() == text:
                return False
    except FileNotFoundError:
        pass
    tmp = path + ".tmp"
    with open(tmp, "w", encoding="utf-8") as f:
        f.write(text)
    os.replace(tmp, path)
    return True


def hf_file_contents(special_tokens: Dict[str, Optional[str]],
                     additional_special_tokens: List[str]) -> Dict[str, str]:
    """The three files ``write_hf_files`` writes, as {name: text}, for a directory whose
    special tokens by role are ``special_tokens`` ({"pad_token": "<pad>", ...}, None when
    absent) and whose other special tokens are ``additional_special_tokens``. Plain JSON and a
    fixed module file: a writer in another language (the exporter) can write the same bytes."""
    roles = {role: special_tokens.get(role) for role, _ in _ROLES}
    present = {k: v for k, v in roles.items() if v is not None}
    if additional_special_tokens:
        present["additional_special_tokens"] = list(additional_special_tokens)
    config = {
        "tokenizer_class": "MorpheusTokenizer",
        "auto_map": AUTO_MAP,
        "add_bos_token": False,
        "add_eos_token": False,
        "clean_up_tokenization_spaces": False,
        **roles,
    }
    if additional_special_tokens:
        config["additional_special_tokens"] = list(additional_special_tokens)

    def dump(obj):
        return json.dumps(obj, indent=2, sort_keys=True, ensure_ascii=False) + "\n"

    return {TOKENIZER_CONFIG_FILE: dump(config), SPECIAL_TOKENS_MAP_FILE: dump(present),
            MODULE_FILE: MODULE_SOURCE}


def write_hf_files(tokdir: str) -> List[str]:
    """Writes ``tokenizer_config.json``, ``special_tokens_map.json`` and ``morpheus_tokenizer.py``
    into the tokenizer directory ``tokdir`` so that ``AutoTokenizer.from_pretrained(tokdir)``
    (after ``import morpheus.hf``, or with ``trust_remote_code=True``) loads it. Idempotent:
    files already holding these bytes are left alone. Returns the paths written."""
    tok = Tokenizer(tokdir, self_test=False)
    pieces = {role: (tok.id_to_piece(getattr(tok, id_name)) if getattr(tok, id_name) >= 0
                     else None) for role, id_name in _ROLES}
    named = set(pieces.values())
    extra = [s for s in tok.special_tokens if s not in named]
    written = []
    for name, text in hf_file_contents(pieces, extra).items():
        path = os.path.join(tokdir, name)
        if _write_if_changed(path, text):
            written.append(path)
    return written


AutoConfig.register(MorpheusConfig.model_type, MorpheusConfig, exist_ok=True)
AutoTokenizer.register(MorpheusConfig, slow_tokenizer_class=MorpheusTokenizer, exist_ok=True)
