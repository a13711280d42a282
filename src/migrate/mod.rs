//! Moving a running Karmada control plane to garrison, with proof.
//!
//! [`import`] turns what `kubectl get -o yaml` exports from
//! karmada-apiserver into a garrison repository; [`verify`] compares what
//! that repository renders with the Works Karmada wrote, on what a member
//! cluster runs ([`member`]). Both are pure: [`export`] parses texts the
//! command read, and the command writes or prints what they return.

pub mod export;
pub mod import;
pub mod member;
pub mod verify;
