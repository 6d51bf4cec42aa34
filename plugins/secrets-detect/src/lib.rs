//! `secrets-detect`: which credentials a text holds, and where.
//!
//! The detectors behind the `secrets-guard` check and the host's
//! decision-log redactor (`toolvet_preset::SecretsRedactor`), in one place
//! so that both find the same secrets. The library knows credentials, not
//! calls: where a call sends them, and what to do about it, is the check's.
//!
//! - [`Detectors`] ([`detect`]): compiled once, then [`Detectors::scan`]
//!   gives every [`Hit`] in a text (its [`Kind`] and byte span), with the
//!   argument's name as context; [`Detectors::has_aws_id`] and
//!   [`Detectors::is_gcp_object`] read a call's whole JSON text and its
//!   JSON objects;
//! - [`Kind`] ([`kind`]): the kinds found, with their ids (rules
//!   `secrets.<id>`), phrases and home domains;
//! - [`providers`]: the table of providers' token formats;
//! - [`named`]: passwords and secrets given by name (`password=…`).
//!
//! ```
//! use secrets_detect::{Detectors, EntropyOptions, Kind};
//!
//! let detectors = Detectors::new(EntropyOptions::default());
//! let text = "token ghp_R4nd0mT0k3nV4lu3Xq9Lm2Np8Kd7Wz5Yb1Cc3E";
//! let hits = detectors.scan(text, "", false);
//! assert_eq!(hits[0].kind, Kind::GithubToken);
//! assert_eq!(&text[hits[0].start..hits[0].end], &text[6..]);
//! ```

#![warn(missing_docs)]

pub mod detect;
pub mod kind;
pub mod named;
pub mod providers;

pub use detect::{Detectors, EntropyOptions, Hit};
pub use kind::Kind;
