//! Pruning: the fields a member cluster assigns itself (a Service's
//! cluster IPs, a Job's generated selector, …) are dropped from the
//! template, as Karmada's default interpreter prunes them.

use super::{Made, Materialiser, Target};
use crate::diag::Diagnostic;
use crate::interpret;

pub(super) fn step(
    _: &Materialiser<'_>,
    target: &Target<'_>,
    made: &mut Made,
) -> Result<(), Diagnostic> {
    let key = &target.template.key;
    interpret::prune(&key.api_version, &key.kind, &mut made.value);
    Ok(())
}
