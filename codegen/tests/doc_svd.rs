//! `ddgen doc` and `ddgen svd` over the bundled maps: every item of every map is in its page,
//! capabilities come from the dump JSON (so any capability shows), the diff page covers every map
//! that extends another, and the SVD holds every register. Follows `regs/*.yaml`; no SoC named.

use ddgen::Project;
use std::collections::HashMap;
use std::path::Path;

fn bundled() -> Project {
    let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("../regs");
    ddgen::load(&ddgen::yaml_files(&dir).expect("bundled maps")).unwrap_or_else(|r| panic!("{r}"))
}

fn site(p: &Project) -> HashMap<String, String> {
    let links = ddgen::doc::Links::new(&p.sources, Path::new("."), Some("https://example.invalid/src"));
    ddgen::doc::render(p, &links).into_iter().collect()
}

#[test]
fn every_register_field_descriptor_and_capability_is_documented() {
    let p = bundled();
    let pages = site(&p);
    for (i, m) in p.maps.iter().enumerate() {
        let page = &pages[&ddgen::doc::page_name(&m.name.value)];
        for s in &m.spaces {
            for b in &s.blocks {
                for r in &b.registers {
                    let id = format!("id=\"r-{}-{}-{}\"", s.name.value, b.name.value, r.name.value);
                    assert!(page.contains(&id), "{}: no section {id}", m.name.value);
                    for f in &r.fields {
                        // A field array is documented element by element (`name[n]`).
                        let names: Vec<String> = match &f.array {
                            None => vec![f.name.value.clone()],
                            Some(_) => (0..f.count()).map(|n| format!("{}[{n}]", f.name.value)).collect(),
                        };
                        for n in names {
                            assert!(page.contains(&format!("<code>{n}</code>")), "{}: field {n}", m.name.value);
                        }
                    }
                }
            }
        }
        for d in &m.descriptors {
            for w in 0..d.size.value.div_ceil(4) {
                assert!(
                    page.contains(&format!("id=\"d-{}-w{w}\"", d.name.value)),
                    "{}: {} word {w}",
                    m.name.value,
                    d.name.value
                );
            }
        }
        if let Some(c) = &p.caps[i] {
            let json = ddgen::dump::caps_json(c);
            for k in json.as_object().expect("capabilities are an object").keys() {
                assert!(
                    page.contains(&format!("<td><code>{k}</code></td>")),
                    "{}: capability {k} missing",
                    m.name.value
                );
            }
        }
        // Source links carry the line.
        assert!(page.contains(&format!("#L{}\"", m.name.span.line)), "{}: no link to its name's line", m.name.value);
    }
    let diff = &pages["diff.html"];
    for m in p.maps.iter().filter(|m| !m.ancestors.is_empty()) {
        assert!(diff.contains(&format!("<h2 id=\"{}\">", m.name.value)), "diff page lacks {}", m.name.value);
    }
    for (name, html) in &pages {
        assert!(!html.contains("<script"), "{name} has a script");
    }
}

#[test]
fn diff_page_shows_added_overridden_and_removed_items() {
    let base = "name: base\nabstract: true\nspaces:\n  fe:\n    blocks:\n      a:\n        base: 0x0\n        registers:\n          keep: {offset: 0x0, access: rw}\n          change: {offset: 0x4, access: rw}\n          gone: {offset: 0x8, access: ro}\n";
    let derived = "name: derived\nabstract: true\nextends: base\nremove: [fe.a.gone]\nspaces:\n  fe:\n    blocks:\n      a:\n        registers:\n          change: {offset: 0xc}\n          new: {offset: 0x10, access: wo}\n";
    let p = ddgen::load_texts(&[("base.yaml", base), ("derived.yaml", derived)])
        .unwrap_or_else(|r| panic!("{}", r.render()));
    let diff = &site(&p)["diff.html"];
    let row =
        |class: &str, path: &str| format!("<tr class=\"{class}\"><td>{class}</td><td>register <code>{path}</code>");
    assert!(diff.contains(&row("added", "fe.a.new")), "{diff}");
    assert!(diff.contains(&row("overridden", "fe.a.change")), "{diff}");
    assert!(diff.contains(&row("removed", "fe.a.gone")), "{diff}");
    assert!(!diff.contains("fe.a.keep"), "an unchanged register is not a difference");
    // Side by side: the base's offset and the derived one.
    assert!(diff.contains("offset 0x4") && diff.contains("offset 0xc"));
}

#[test]
fn svd_has_every_register_of_every_soc() {
    let p = bundled();
    for (m, _) in p.socs() {
        let svd = ddgen::svd::to_svd(m, &HashMap::new());
        for s in &m.spaces {
            for b in &s.blocks {
                for r in &b.registers {
                    let name = if r.array.is_some() {
                        format!("<name>{}[%s]</name>", r.name.value)
                    } else {
                        format!("<name>{}</name>", r.name.value)
                    };
                    assert!(svd.contains(&name), "{}: {} missing from the SVD", m.name.value, r.name.value);
                }
            }
        }
        assert_eq!(
            svd.matches("<register>").count(),
            m.spaces.iter().flat_map(|s| &s.blocks).map(|b| b.registers.len()).sum::<usize>()
        );
    }
}

fn ddgen(args: &[&str]) -> (i32, String, String) {
    let out = std::process::Command::new(env!("CARGO_BIN_EXE_ddgen")).args(args).output().expect("run ddgen");
    (
        out.status.code().unwrap_or(-1),
        String::from_utf8_lossy(&out.stdout).into(),
        String::from_utf8_lossy(&out.stderr).into(),
    )
}

#[test]
fn bad_arguments_are_clear_errors() {
    let (code, _, err) = ddgen(&["svd", "no-such-map"]);
    assert_eq!(code, 2, "{err}");
    assert!(err.contains("no map named `no-such-map`; known maps:"), "{err}");
    let soc = bundled().socs().next().map(|(m, _)| m.name.value.clone()).expect("a SoC");
    let (code, _, err) = ddgen(&["svd", &soc, "--base", "nospace=0x1000"]);
    assert_eq!(code, 2, "{err}");
    assert!(err.contains("has no space `nospace`"), "{err}");
    let (code, _, err) = ddgen(&["svd", &soc, "--base", "fe=zz"]);
    assert_eq!(code, 2, "{err}");
    assert!(err.contains("expected SPACE=ADDR"), "{err}");
    let (code, _, err) = ddgen(&["doc", "-o", "/dev/null/site"]);
    assert_eq!(code, 1, "{err}");
    assert!(err.contains("cannot create /dev/null/site"), "{err}");
    let dir = std::env::temp_dir().join(format!("ddgen-doc-test-{}", std::process::id()));
    let (code, _, err) =
        ddgen(&["doc", "-o", dir.to_str().unwrap(), "--diagram", &format!("{soc}:no.such.register=x.svg")]);
    let _ = std::fs::remove_dir_all(&dir);
    assert_eq!(code, 2, "{err}");
    assert!(err.contains("has no register `no.such.register`"), "{err}");
}

#[test]
fn svd_base_addresses_move_the_peripherals() {
    let p = bundled();
    let (m, _) = p.socs().next().expect("a SoC");
    let space = &m.spaces[0];
    let block = &space.blocks[0];
    let svd = ddgen::svd::to_svd(m, &HashMap::from([(space.name.value.clone(), 0x1000_0000)]));
    assert!(svd.contains(&format!("<baseAddress>0x{:08x}</baseAddress>", 0x1000_0000 + block.base.value)), "{svd}");
}
