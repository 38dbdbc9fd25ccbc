"""Type stubs of the extension module (re-exported by ``promptc``)."""

import os
import pathlib
from typing import Any, Literal, Mapping, Optional, Sequence, Union

__version__: str

Transport = Literal["native", "xml", "json"]
Provider = Literal["openai", "openai-responses", "anthropic", "gemini", "mcp"]
JSON = Any

class PromptcError(Exception):
    """A promptc failure; ``str(err)`` is what the command line prints."""

    kind: Literal["project", "template", "usage", "record", "io", "internal"]
    diagnostics: list[Diagnostic]

class Diagnostic:
    """One located problem: what is wrong, where, and how to fix it."""

    @property
    def severity(self) -> Literal["error", "warning", "info"]: ...
    @property
    def code(self) -> Optional[str]: ...
    @property
    def message(self) -> str: ...
    @property
    def file(self) -> Optional[str]: ...
    @property
    def line(self) -> Optional[int]: ...
    @property
    def column(self) -> Optional[int]: ...
    @property
    def notes(self) -> list[str]: ...
    @property
    def help(self) -> Optional[str]: ...

class Cell:
    """One cell of the project's snapshot matrix."""

    @property
    def name(self) -> str: ...
    @property
    def profile(self) -> str: ...
    @property
    def case(self) -> Optional[str]: ...
    @property
    def transport(self) -> Transport: ...
    @property
    def subagent(self) -> Optional[str]: ...
    @property
    def providers(self) -> list[Provider]: ...
    @property
    def options(self) -> dict[str, Any]:
        """The keyword arguments of :meth:`Project.compile` that compile this cell."""

class Compiled:
    """A compiled cell: the frozen prompt, its tool projection and metadata."""

    @property
    def prompt(self) -> str: ...
    @property
    def tools(self) -> Optional[list[dict[str, JSON]]]: ...
    @property
    def tools_json(self) -> Optional[str]: ...
    @property
    def metadata(self) -> dict[str, JSON]: ...
    @property
    def sections(self) -> list[dict[str, JSON]]: ...
    @property
    def profile(self) -> str: ...
    @property
    def transport(self) -> Transport: ...
    @property
    def provider(self) -> Optional[Provider]: ...
    @property
    def subagent(self) -> Optional[str]: ...
    @property
    def tool_names(self) -> list[str]: ...
    @property
    def nonce(self) -> str: ...
    @property
    def warnings(self) -> list[Diagnostic]: ...
    @property
    def cache(self) -> dict[str, JSON]: ...
    def anthropic_request(self) -> Optional[dict[str, JSON]]: ...
    def to_json(self) -> str: ...

class Verdict:
    """Whether a frozen record is still what the project compiles."""

    @property
    def fresh(self) -> bool: ...
    @property
    def status(self) -> Literal["fresh", "stale"]: ...
    @property
    def reasons(self) -> list[str]: ...
    @property
    def notes(self) -> list[str]: ...
    def to_dict(self) -> dict[str, JSON]: ...
    def __bool__(self) -> bool: ...

class Project:
    """A loaded project: load once, compile many cells, from any thread."""

    @staticmethod
    def load(path: Union[str, os.PathLike[str]]) -> Project: ...
    @property
    def name(self) -> str: ...
    @property
    def root(self) -> pathlib.Path: ...
    @property
    def warnings(self) -> list[Diagnostic]: ...
    def cells(self) -> list[Cell]: ...
    def compile(
        self,
        *,
        profile: Optional[str] = None,
        transport: Optional[Transport] = None,
        provider: Optional[Provider] = None,
        model: Optional[str] = None,
        context_window: Union[int, float, str, None] = None,
        switches: Optional[Mapping[str, bool]] = None,
        variables: Optional[Mapping[str, JSON]] = None,
        subagent: Optional[str] = None,
        nonce: Optional[str] = None,
        context_file: Union[str, os.PathLike[str], None] = None,
        lenient: bool = False,
    ) -> Compiled: ...
    def report(
        self,
        *,
        profile: Optional[str] = None,
        transport: Optional[Transport] = None,
        provider: Optional[Provider] = None,
        model: Optional[str] = None,
        context_window: Union[int, float, str, None] = None,
        switches: Optional[Mapping[str, bool]] = None,
        variables: Optional[Mapping[str, JSON]] = None,
        subagent: Optional[str] = None,
        nonce: Optional[str] = None,
        context_file: Union[str, os.PathLike[str], None] = None,
        lenient: bool = False,
        tokenizer: Optional[str] = None,
    ) -> dict[str, JSON]: ...
    def freeze(
        self,
        *,
        profile: Optional[str] = None,
        transport: Optional[Transport] = None,
        provider: Optional[Provider] = None,
        model: Optional[str] = None,
        context_window: Union[int, float, str, None] = None,
        switches: Optional[Mapping[str, bool]] = None,
        variables: Optional[Mapping[str, JSON]] = None,
        nonce: Optional[str] = None,
        context_file: Union[str, os.PathLike[str], None] = None,
        lenient: bool = False,
    ) -> dict[str, JSON]: ...

def verify(record: Union[Mapping[str, JSON], str, os.PathLike[str]], project: Project) -> Verdict: ...
def run_cli(argv: Sequence[str]) -> int: ...
