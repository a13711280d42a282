//! garrison's revise-object hook (SPEC §4): a customization's script
//! changes the object, seeing the cluster (with garrison's facts) and the
//! application's fort.

use super::{cluster_labels, Made, Materialiser, Target};
use crate::diag::Diagnostic;
use crate::interpret::{HookCluster, HookFort};

pub(super) fn step(
    materialiser: &Materialiser<'_>,
    target: &Target<'_>,
    made: &mut Made,
) -> Result<(), Diagnostic> {
    let app = target.app;
    let labels = cluster_labels(target.cluster, app);
    let cluster = HookCluster {
        name: &target.cluster.name,
        labels: &labels,
    };
    let enabled = materialiser.fort_enabled(app);
    let fort = HookFort {
        enabled,
        cluster: app.fort.as_ref().map(|f| f.cluster.as_str()),
    };
    materialiser
        .interpreter
        .revise_object(
            &target.template.key,
            &mut made.value,
            &cluster,
            target.replicas,
            &fort,
        )
        .map_err(|e| Materialiser::fault(target, e))
}
