"""promptc: compile an agent's system prompt and tools from a declarative project.

Load a project once, then compile the cell an agent needs at run time::

    import promptc

    project = promptc.Project.load("profiles")
    cell = project.compile(profile="standard", provider="anthropic",
                           switches={"browser": True}, variables={"cwd": "/repo"})
    cell.prompt          # the system prompt, as `promptc render` prints it
    cell.tools           # the provider's tools, parsed
    record = project.freeze(profile="standard")
    promptc.verify(record, project).fresh

Errors raise :class:`PromptcError`, whose ``diagnostics`` carry file, line, column,
message and help, as the command line prints them.
"""

from promptc._promptc import (
    Cell,
    Compiled,
    Diagnostic,
    Project,
    PromptcError,
    Verdict,
    __version__,
    verify,
)

__all__ = [
    "Cell",
    "Compiled",
    "Diagnostic",
    "Project",
    "PromptcError",
    "Verdict",
    "__version__",
    "verify",
]
