//! What a tool does, guessed from its name when the host has no tool
//! facts for it: the default tool-name globs of each effect class of the
//! contract (`toolvet:check@0.2.0`'s `effects` flags). A check that judges
//! calls by effect reads the host's facts first (`tool.facts`) and falls
//! back to these, as the policy's settings may replace them.
//!
//! The globs name verbs and objects (`*send*`, `*transfer*`), not tools of
//! one vendor; they overlap on purpose (`*share*` is a message and a
//! permission change).

/// Tools that send a message to a person or system outside the run.
pub const OUTBOUND_MESSAGE: &[&str] = &[
    "*send*",
    "*email*",
    "*mail",
    "*message*",
    "*reply*",
    "*forward*",
    "*post*",
    "*notify*",
    "*comment*",
    "*share*",
    "*invite*",
    "*sms*",
    "*chat*",
    "*tweet*",
    "*webhook*",
];

/// Tools that move money.
pub const PAYMENT: &[&str] = &[
    "*pay*",
    "*transfer*",
    "*refund*",
    "*money*",
    "*wallet*",
    "*purchase*",
    "*checkout*",
    "*charge*",
    "*withdraw*",
    "*transaction*",
];

/// Tools that make something public, shared or part of the code base.
pub const PUBLISH: &[&str] = &[
    "*push*",
    "*merge*",
    "*release*",
    "*publish*",
    "*gist*",
    "*upload*",
];

/// Tools that change who may do what.
pub const PERMISSION_CHANGE: &[&str] = &[
    "*password*",
    "*permission*",
    "*role*",
    "*grant*",
    "*invite*",
    "*member*",
    "*collaborator*",
    "*access*",
    "*visibility*",
];

/// Tools that change what runs in an environment.
pub const DEPLOY: &[&str] = &[
    "*deploy*",
    "*rollout*",
    "*terraform_apply*",
    "*kubectl_apply*",
];
