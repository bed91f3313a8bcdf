//! The tutorial (`docs/tutorial.md`): a kernel built step by step. Its code
//! blocks run as this module's doc tests.
#![doc = include_str!("../../docs/tutorial.md")]
