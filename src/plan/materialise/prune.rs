//! Pruning: the fields a member cluster assigns itself (a Service's
//! cluster IPs, a Job's generated selector, …) are dropped, as Karmada
//! prunes them when it writes the Work and again in the Work webhook:
//! after the overrides, so an override cannot put them back.

use super::{Made, Materialiser, Target};
use crate::diag::Diagnostic;
use crate::interpret;

pub(super) fn step(
    _: &Materialiser<'_>,
    target: &Target<'_>,
    made: &mut Made,
) -> Result<(), Diagnostic> {
    let key = &target.template.key;
    interpret::prune_for_work(&key.api_version, &key.kind, &mut made.value);
    Ok(())
}
