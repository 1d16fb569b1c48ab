# SPDX-License-Identifier: MIT
from os import PathLike
from typing import Optional, Union

from ._embed import Embedder as Embedder
from ._tokenizer import Tokenizer as _Tokenizer

def model_server_binary() -> str: ...

class Tokenizer(_Tokenizer):
    def __init__(
        self,
        path: Union[str, "PathLike[str]"],
        model_server: Optional[str] = None,
        cache: int = 1048576,
        self_test: bool = True,
    ) -> None: ...
