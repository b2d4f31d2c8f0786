//! A capture written by puffin 0.20 itself (`GlobalProfiler` + `FrameView::write`)
//! decodes to what was recorded.

use puffin_lens::engine::{self, ScopeIdx, ScopeKind};

fn work(i: usize) {
    puffin::profile_function!(format!("call {i}"));
    std::hint::black_box((0..1000).sum::<usize>());
}

#[test]
fn capture_written_by_puffin_decodes() {
    puffin::set_scopes_on(true);
    let view = puffin::GlobalFrameView::default();
    for frame in 0..4 {
        {
            puffin::profile_scope!("frame_body", format!("frame {frame}"));
            for i in 0..3 {
                work(i);
            }
            let worker = std::thread::Builder::new()
                .name("worker".into())
                .spawn(|| {
                    puffin::profile_scope!("job");
                })
                .unwrap();
            worker.join().unwrap();
        }
        puffin::GlobalProfiler::lock().new_frame();
    }
    let mut bytes = Vec::new();
    view.lock().write(&mut bytes).unwrap();

    let decoded = engine::load(&bytes).unwrap();
    assert!(decoded.diagnostics.is_empty(), "{:?}", decoded.diagnostics);
    let t = &decoded.trace;
    assert_eq!(t.frames.len(), 4);
    assert_eq!(t.format.record_kinds, vec!["PFD4"]);
    assert_eq!(t.format.compressions, vec!["lz4"]);
    let names: Vec<&str> = (0..t.scopes.len() as u32)
        .map(|i| t.scope_name(ScopeIdx(i)))
        .collect();
    assert_eq!(names.iter().filter(|n| **n == "frame_body").count(), 4);
    assert_eq!(names.iter().filter(|n| **n == "job").count(), 4);
    let work_calls: Vec<ScopeIdx> = (0..t.scopes.len() as u32)
        .map(ScopeIdx)
        .filter(|&i| t.scope_name(i).ends_with("work"))
        .collect();
    assert_eq!(work_calls.len(), 12);
    for &i in &work_calls {
        let parent = t.scopes.parent[i.idx()];
        assert_eq!(t.scope_name(ScopeIdx(parent)), "frame_body");
        assert!(t.scope_data(i).starts_with("call "));
    }
    let def = t.scopes.def[work_calls[0].idx()];
    assert_eq!(t.defs.kind[def.idx()], ScopeKind::Function);
    assert!(t.str(t.defs.file[def.idx()]).ends_with("puffin_writer.rs"));
    assert!(t.defs.line[def.idx()] > 0);
    let threads: Vec<&str> = (0..t.threads.len() as u32)
        .map(|i| t.thread_name(engine::ThreadId(i)))
        .collect();
    assert!(threads.contains(&"worker"), "{threads:?}");
    // And it exports and reloads identically.
    let text = engine::export_string(t, "live.puffin", false);
    let again = engine::load(text.as_bytes()).unwrap();
    assert_eq!(
        engine::export_string(&again.trace, "live.puffin", false),
        text
    );
}
