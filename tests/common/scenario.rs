//! The analyses' scenario: three frames whose answers are known by
//! construction (shared by the CLI, API and view tests).

use puffin_lens::engine::write::puffin::{FrameData, Registration, ScopeNode, ThreadData};

pub const T0: i64 = 1_000_000_000;
/// Milliseconds from T0 as absolute nanoseconds.
pub fn t(ms: f64) -> i64 {
    T0 + (ms * 1e6).round() as i64
}
pub fn ns(ms: f64) -> i64 {
    (ms * 1e6).round() as i64
}

pub fn scope(id: u32, from_ms: f64, to_ms: f64, data: &str) -> ScopeNode {
    ScopeNode::new(id, t(from_ms), t(to_ms)).data(data)
}

pub fn thread(name: &str, start: i64, scopes: Vec<ScopeNode>) -> ThreadData {
    ThreadData {
        name: name.into(),
        start_time_ns: Some(start),
        scopes,
    }
}

pub const FRAME: u32 = 1;
pub const UPDATE: u32 = 2;
pub const RENDER: u32 = 3;
pub const LOAD: u32 = 4;
pub const JOB: u32 = 5;

pub fn registrations() -> Vec<Registration> {
    vec![
        Registration::named(FRAME, "frame", "app::run", "src/app.rs", 10),
        Registration::function(UPDATE, "app::update", "src/app.rs", 20),
        Registration::function(RENDER, "app::render", "src/render.rs", 5),
        Registration::named(LOAD, "load", "app::assets", "src/assets.rs", 42),
        Registration::named(JOB, "job", "app::worker", "src/worker.rs", 7),
    ]
}

/// Frame 10: main has a 5 ms unprofiled gap (5..10 ms) between update and
/// render while rayon-1 runs jobs a, b (2 ms each) and rayon-2 runs c (3 ms)
/// and d (3.5 ms, 1.5 ms of it inside the gap). Frame 11 is quick. Frame 12
/// has one 30 ms `load` (a spike among three loads).
pub fn scenario() -> Vec<FrameData> {
    vec![
        FrameData {
            frame_index: 10,
            threads: vec![
                thread(
                    "main",
                    0,
                    vec![
                        scope(FRAME, 0.0, 20.0, "frame 0")
                            .child(scope(UPDATE, 0.5, 5.0, ""))
                            .child(
                                scope(RENDER, 10.0, 18.0, "")
                                    .child(scope(LOAD, 10.0, 11.0, "tex.png")),
                            ),
                    ],
                ),
                thread(
                    "rayon-1",
                    1,
                    vec![scope(JOB, 5.2, 7.2, "a"), scope(JOB, 7.5, 9.5, "b")],
                ),
                thread(
                    "rayon-2",
                    2,
                    vec![scope(JOB, 5.0, 8.0, "c"), scope(JOB, 8.5, 12.0, "d")],
                ),
            ],
            registrations: registrations(),
        },
        FrameData {
            frame_index: 11,
            threads: vec![thread(
                "main",
                0,
                vec![
                    scope(FRAME, 30.0, 38.0, "frame 1")
                        .child(scope(UPDATE, 30.5, 33.0, ""))
                        .child(
                            scope(RENDER, 33.0, 37.0, "").child(scope(LOAD, 33.0, 34.0, "tex.png")),
                        ),
                ],
            )],
            registrations: vec![],
        },
        FrameData {
            frame_index: 12,
            threads: vec![thread(
                "main",
                0,
                vec![
                    scope(FRAME, 50.0, 81.0, "frame 2").child(scope(LOAD, 50.5, 80.5, "mesh.glb")),
                ],
            )],
            registrations: vec![],
        },
    ]
}

/// Diff pair, A: frame 10 of the scenario.
pub fn diff_a() -> Vec<FrameData> {
    vec![scenario().remove(0)]
}

/// Diff pair, B: frame 10 with `update` gone, a new `physics`, `load` under
/// render twice as slow, one job fewer on rayon-1, rayon-2 idle, and a
/// thread only in B (`audio`).
pub fn diff_b(registered: bool) -> Vec<FrameData> {
    const PHYSICS: u32 = 6;
    const MIX: u32 = 7;
    let mut regs = registrations();
    regs.push(Registration::named(
        PHYSICS,
        "physics",
        "app::physics",
        "src/physics.rs",
        3,
    ));
    regs.push(Registration::named(
        MIX,
        "mix",
        "app::audio",
        "src/audio.rs",
        9,
    ));
    vec![FrameData {
        frame_index: 10,
        threads: vec![
            thread("audio", 3, vec![scope(MIX, 0.0, 3.0, "")]),
            thread(
                "main",
                0,
                vec![
                    scope(FRAME, 0.0, 20.0, "frame 0")
                        .child(scope(PHYSICS, 2.0, 6.0, ""))
                        .child(
                            scope(RENDER, 10.0, 18.0, "").child(scope(LOAD, 10.0, 12.0, "tex.png")),
                        ),
                ],
            ),
            thread("rayon-1", 1, vec![scope(JOB, 5.2, 7.2, "a")]),
        ],
        registrations: if registered { regs } else { Vec::new() },
    }]
}
