# SPDX-License-Identifier: MIT
from os import PathLike
from typing import Any, Dict, List, Optional, Tuple, Union

import numpy as np
import numpy.typing as npt

from ._embed import Embedder as _Embedder
from ._tokenizer import Tokenizer as _Tokenizer

__version__: str
git_describe: str

def binary(name: str) -> str: ...

# At run time Tokenizer and Embedder are handles that forward to the C++ objects
# (_tokenizer.Tokenizer, _embed.Embedder): the same methods and properties, plus these.
class _Handle:
    def close(self) -> None: ...
    @property
    def closed(self) -> bool: ...
    def __enter__(self: Any) -> Any: ...
    def __exit__(self, *exc: Any) -> None: ...

class Embedder(_Handle, _Embedder):
    def __init__(
        self,
        path: Union[str, "PathLike[str]"],
        device: str = "cpu",
        batch_size: int = 16384,
        threads: int = 1,
    ) -> None: ...

class Tokenizer(_Handle, _Tokenizer):
    def __init__(
        self,
        path: Union[str, "PathLike[str]"],
        self_test: bool = True,
        cache_file: Optional[Union[str, "PathLike[str]"]] = None,
        device: str = "cpu",
        threads: int = 1,
    ) -> None: ...

class Index:
    index: Any
    words: List[str]
    def __init__(
        self, path: Union[str, "PathLike[str]"], ef_search: int = 64, nprobe: int = 16
    ) -> None: ...
    # Thread-safe: ef_search / nprobe are set once in __init__; FAISS searches without the GIL.
    def search(self, vectors: npt.ArrayLike, k: int = 10) -> List[List[Tuple[str, float]]]: ...

# morpheus pack / pack merge (the `morpheus` binary) and a reader of their token files.
def pack(
    model: Union[str, "PathLike[str]"],
    inputs: Union[str, "PathLike[str]", List[Union[str, "PathLike[str]"]]],
    out: Union[str, "PathLike[str]"],
    format: str = "megatron",
    jsonl_key: str = "text",
    plain: bool = False,
    append_eos: bool = False,
    prepend_bos: bool = False,
    workers: int = 1,
    shard: Optional[Union[str, Tuple[int, int]]] = None,
    cache_file: Optional[Union[str, "PathLike[str]"]] = None,
    skip_invalid: bool = False,
    block_docs: Optional[int] = None,
    model_threads: Optional[int] = None,
    device: Optional[str] = None,
) -> Dict[str, Any]: ...
def merge_packs(
    parts: List[Union[str, "PathLike[str]"]], out: Union[str, "PathLike[str]"]
) -> Dict[str, Any]: ...
def read_pack(prefix: Union[str, "PathLike[str]"]) -> List[npt.NDArray[Any]]: ...
