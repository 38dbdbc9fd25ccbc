//! P012 shell-unsafe-value: found while loading (a string switch's value holding a character a
//! shell would act on); reported with the load's warnings and by `promptc check`, an error by
//! default. The check itself is the loader's (`load::switches`), where each value's span is.

use crate::code::{Level, RuleCode};
use crate::lint::registry::Rule;

pub const RULE: Rule = Rule {
    code: RuleCode::P012,
    name: "shell-unsafe-value",
    default: Level::Deny,
    summary: "a switch value holds a shell metacharacter, a control character or a bidirectional override",
    explain: "Switch values are typed on command lines (`--set NAME=VALUE`) and offered by shell completion. A \
        value such as `$(touch X)`, `` `id` ``, `a;b` or `*` means something to the shell that reads it: a \
        repository that declares one is asking its users to run it. A control character, a line or paragraph \
        separator or a bidirectional override (U+202A–U+202E, U+2066–U+2069) cannot be typed and can make a line \
        read otherwise than it is. promptc's completion quotes every value and leaves such characters out, but a \
        value copied from the README or a CI script is not quoted.\n\nFix: use letters, digits and `_-.,/:=@%+` in \
        switch values (`values: [terse, verbose]`).",
};
