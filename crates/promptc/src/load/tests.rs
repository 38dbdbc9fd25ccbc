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

/// A profile's line and the messages of the warnings located there.
fn warnings_at(p: &Project, line: usize) -> Vec<String> {
    p.warnings
        .iter()
        .filter(|w| w.label.as_ref().and_then(|l| l.position.as_ref()).is_some_and(|p| p.line == line))
        .map(|w| w.message.clone())
        .collect()
}

#[test]
fn undeclared_roles_fall_to_the_first_profile_and_old_names_warn() {
    let m = format!(
        "{HEAD}sections:\n  a: {{text: x}}\ntools: []\nprofiles:\n  lite: {{sections: [a]}}\n  standard: \
        {{sections: [a]}}\n"
    );
    let (_d, p) = load(&[(MANIFEST, &m)]);
    let p = p.unwrap();
    // No name has a role: the first profile is the default and the selection picks it too.
    assert_eq!(p.defaults.profile, "lite");
    assert_eq!(p.selection.profile, "lite");
    assert!(p.lint.subsets.is_empty());
    assert_eq!(p.selection.below_context_window, 64_000);
    assert_eq!(p.transports, Transport::DEFAULT);
    assert_eq!(p.providers, Provider::MODEL_APIS);
    // Where the old names would have meant something else, each says what to declare.
    let (lite, standard) = (warnings_at(&p, 8), warnings_at(&p, 9));
    assert_eq!(lite.len(), 1, "{lite:?}");
    assert!(lite[0].contains("`lite` is not checked as a subset of `standard`"), "{lite:?}");
    assert_eq!(standard.len(), 1, "{standard:?}");
    assert!(standard[0].contains("the first one declared, `lite`, not `standard`"), "{standard:?}");
    assert_eq!(p.warnings.len(), 2);
}

#[test]
fn declared_roles_work_under_any_names() {
    let m = format!(
        "{HEAD}defaults: {{profile: full}}\nselection: {{profile: mini}}\ncheck: {{subsets: {{mini: \
        full}}}}\nsections:\n  a: {{text: x}}\ntools: []\nprofiles:\n  mini: {{sections: [a]}}\n  full: \
        {{sections: [a]}}\n"
    );
    let (_d, p) = load(&[(MANIFEST, &m)]);
    let p = p.unwrap();
    assert_eq!(p.defaults.profile, "full");
    assert_eq!(p.selection.profile, "mini");
    assert_eq!(p.lint.subsets, [("mini".to_string(), "full".to_string())]);
    assert!(p.warnings.is_empty(), "{:?}", p.warnings);
}

#[test]
fn old_role_names_with_declared_roles_are_quiet() {
    let m = format!(
        "{HEAD}selection: {{profile: standard}}\ncheck: {{subsets: {{}}}}\nsections:\n  a: {{text: \
        x}}\ntools: []\nprofiles:\n  standard: {{sections: [a]}}\n  lite: {{sections: [a]}}\n"
    );
    let (_d, p) = load(&[(MANIFEST, &m)]);
    let p = p.unwrap();
    assert_eq!((p.defaults.profile.as_str(), p.selection.profile.as_str()), ("standard", "standard"));
    assert!(p.lint.subsets.is_empty());
    assert!(p.warnings.is_empty(), "{:?}", p.warnings);
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

#[test]
fn selection_patterns_may_match_case_exactly() {
    let m = format!(
        "{HEAD}selection: {{profile: mini, case_sensitive: true, model_segments: [\"GPT-4*\"]}}\nsections:\n  a: \
        {{text: x}}\ntools: []\nprofiles:\n  full: {{sections: [a]}}\n  mini: {{sections: [a]}}\n"
    );
    let (_d, p) = load(&[(MANIFEST, &m)]);
    let p = p.unwrap();
    let pick = |model: &str| {
        let input = crate::model::selection::SelectionInput {
            explicit: None,
            model: Some(model.into()),
            context_window: Some("200000".into()),
        };
        p.selection.select(&input).profile
    };
    assert_eq!((pick("openai/GPT-4o").as_str(), pick("openai/gpt-4o").as_str()), ("mini", "full"));
}

#[test]
fn a_gemini_estimate_factor_is_ignored_with_a_warning_at_its_line() {
    let m = format!(
        "{HEAD}tokens:\n  estimates:\n    claude: 1.3\n    gemini: 1.05\nsections:\n  a: {{text: x}}\ntools: \
         []\nprofiles:\n  standard: {{sections: [a]}}\n"
    );
    let (_d, p) = load(&[(MANIFEST, &m)]);
    let p = p.unwrap();
    let warned = warnings_at(&p, 7);
    assert_eq!(warned.len(), 1, "{:?}", p.warnings);
    assert!(warned[0].contains("Gemini is counted exactly"), "{warned:?}");
    assert_eq!(p.tokens.factors.len(), 1, "only claude's factor is kept");
}
