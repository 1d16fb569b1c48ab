# SPDX-License-Identifier: MIT
from typing import Any, Dict, List, Literal, Optional, Sequence, Tuple, Union

import numpy.typing as npt

HF_MODULE_SOURCE: str  # the module file of a directory's transformers files (morpheus.hf)

class Tokenizer:
    def __init__(
        self,
        path: str,
        self_test: bool = True,
        cache_file: str = "",
        device: str = "cpu",
        threads: int = 1,
    ) -> None: ...
    def encode(
        self,
        text: Union[str, bytes],
        allow_invalid: bool = False,
        add_bos: bool = False,
        add_eos: bool = False,
    ) -> List[int]: ...
    def offsets(
        self,
        text: Union[str, bytes],
        allow_invalid: bool = False,
        add_bos: bool = False,
        add_eos: bool = False,
    ) -> List[Tuple[int, int]]: ...
    # A list of id lists with the defaults; a dict {"input_ids", "attention_mask"[, "offsets"]}
    # (lists, numpy arrays or torch tensors) with padding, return_tensors or return_offsets.
    def encode_batch(
        self,
        texts: Sequence[str],
        threads: int = 1,
        add_bos: bool = False,
        add_eos: bool = False,
        padding: Union[bool, Literal["longest", "max_length", "do_not_pad"]] = False,
        max_length: Optional[int] = None,
        truncation: bool = False,
        return_tensors: Optional[Literal["np", "pt"]] = None,
        return_offsets: bool = False,
        return_attention_mask: bool = False,
    ) -> Union[List[List[int]], Dict[str, Any]]: ...
    # ids: a sequence of ints, a numpy array or a torch tensor.
    def decode(self, ids: npt.ArrayLike, skip_special_tokens: bool = True) -> str: ...
    def decode_batch(self, batch: npt.ArrayLike, skip_special_tokens: bool = True) -> List[str]: ...
    def decode_bytes(self, ids: npt.ArrayLike, skip_special_tokens: bool = True) -> bytes: ...
    def segment(self, word: str) -> List[str]: ...
    def segment_text(self, text: str) -> List[str]: ...
    def id_to_piece(self, id: int) -> str: ...
    def piece_to_id(self, piece: str) -> int: ...
    @property
    def vocab_size(self) -> int: ...
    @property
    def pad_id(self) -> int: ...
    @property
    def bos_id(self) -> int: ...
    @property
    def eos_id(self) -> int: ...
    @property
    def mask_id(self) -> int: ...
    @property
    def special_tokens(self) -> List[str]: ...
    @property
    def user_symbols(self) -> List[str]: ...
    @property
    def path(self) -> str: ...
    @property
    def table_hits(self) -> int: ...
    @property
    def model_runs(self) -> int: ...
    @property
    def cache_file(self) -> str: ...
    @property
    def cache_file_hits(self) -> int: ...
