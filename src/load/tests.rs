//! Unit tests of `project`.

use super::templates::block_indicator;
use super::undeclared::find_identifier;
use super::MANIFEST;
use crate::error::Result;
use crate::model::provider::Provider;
use crate::model::transport::Transport;
use crate::model::Project;

/// Write `files` into a fresh folder and load it.
fn load(files: &[(&str, &str)]) -> (tempfile::TempDir, Result<Project>) {
    let dir = tempfile::tempdir().unwrap();
    for (name, text) in files {
        let p = dir.path().join(name);
        std::fs::create_dir_all(p.parent().unwrap()).unwrap();
        std::fs::write(p, text).unwrap();
    }
    let r = Project::load(&dir.path().join(MANIFEST));
    (dir, r)
}

const HEAD: &str = "promptc: 1\nname: t\ncontract_version: 3\n";

#[test]
fn template_globals_are_not_undefined_variables() {
    let m = format!(
        "{HEAD}sections:\n  a:\n    text: \"{{% for i in range(2) %}}{{{{ i }}}}{{% endfor %}}{{{{ \
        dict(x=1).x }}}}\"\ntools: []\nprofiles:\n  standard:\n    sections: [a]\n"
    );
    let (_d, p) = load(&[(MANIFEST, &m)]);
    p.unwrap();
}

#[test]
fn sections_reading_dynamic_variables_are_dynamic() {
    let m = format!(
        "{HEAD}variables:\n  cwd: {{default: /x, dynamic: true}}\n  name: {{default: \
        n}}\nsections:\n  a:\n    text: \"{{{{ name }}}}\"\n  b:\n    text: \"{{{{ cwd }}}}\"\ntools: \
        []\nprofiles:\n  standard:\n    sections: [a, b]\n"
    );
    let (_d, p) = load(&[(MANIFEST, &m)]);
    let p = p.unwrap();
    assert!(p.sections["a"].dynamic_inputs.is_empty());
    assert_eq!(p.sections["b"].dynamic_inputs, ["cwd"]);
}

#[test]
fn defaults_and_selection_fall_back_to_standard_and_lite() {
    let m = format!(
        "{HEAD}sections:\n  a: {{text: x}}\ntools: []\nprofiles:\n  lite: {{sections: [a]}}\n  standard: \
        {{sections: [a]}}\n"
    );
    let (_d, p) = load(&[(MANIFEST, &m)]);
    let p = p.unwrap();
    assert_eq!(p.defaults.profile, "standard");
    assert_eq!(p.selection.profile, "lite");
    assert_eq!(p.selection.below_context_window, 64_000);
    assert_eq!(p.transports, Transport::DEFAULT);
    assert_eq!(p.providers, Provider::ALL);
}

#[test]
fn every_problem_is_reported_at_once() {
    let m = format!(
        "{HEAD}sections:\n  a: {{text: x, when: nosuch}}\ntools: []\nprofiles:\n  native: {{sections: [a, b]}}\n"
    );
    let (_d, p) = load(&[(MANIFEST, &m)]);
    let e = p.unwrap_err();
    let msgs: Vec<&str> = e.diagnostics().iter().map(|d| d.message.as_str()).collect();
    assert_eq!(msgs.len(), 3, "{msgs:?}");
    assert!(msgs.iter().any(|m| m.contains("unknown switch `nosuch`")));
    assert!(msgs.iter().any(|m| m.contains("`native` cannot be a profile name")));
    assert!(msgs.iter().any(|m| m.contains("unknown section `b`")));
}

#[test]
fn inline_template_errors_point_into_the_manifest() {
    let m = format!(
        "{HEAD}sections:\n  a:\n    text: |\n      line one\n      {{{{ oops( }}}}\ntools: \
        []\nprofiles:\n  standard: {{sections: [a]}}\n"
    );
    let (_d, p) = load(&[(MANIFEST, &m)]);
    let e = p.unwrap_err();
    let d = &e.diagnostics()[0];
    assert!(d.message.contains("syntax error"), "{}", d.message);
    assert_eq!(d.label.as_ref().unwrap().position.unwrap().line, 8, "{}", d.render(false));
}

#[test]
fn block_scalar_headers_with_comments_and_indicators() {
    assert_eq!(block_indicator(" |"), Some(None));
    assert_eq!(block_indicator(" |-   # inline role"), Some(None));
    assert_eq!(block_indicator(" >+"), Some(None));
    assert_eq!(block_indicator(" |2"), Some(Some(2)));
    assert_eq!(block_indicator(" \"| quoted\""), None);
    assert_eq!(block_indicator(" |x"), None);
}

#[test]
fn finds_identifiers_only_inside_tags() {
    let text = "the cwd is {{ cwd }}";
    assert_eq!(find_identifier(text, "cwd"), Some((14, 17)));
    assert_eq!(find_identifier("{{ x.cwd }}", "cwd"), None);
}
