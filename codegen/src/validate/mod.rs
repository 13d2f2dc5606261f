//! Validation: one rule per pass, each in its own file, each reporting every violation it finds.

mod arrays_valid;
mod compatibles_unique;
mod descriptor_fields_fit;
mod descriptors_disjoint;
mod fields_disjoint;
mod fields_fit;
mod layouts_shared;
mod names_valid;
mod offsets_aligned;
mod offsets_in_range;
mod registers_disjoint;
mod soc_complete;
mod type_names_unique;
mod values_fit;

use crate::model::Map;
use crate::source::Diagnostic;

/// A rule checked on one resolved map.
type MapPass = fn(&Map, &mut Vec<Diagnostic>);

/// Rules on one map, in the order they run.
const MAP_PASSES: &[(&str, MapPass)] = &[
    ("names_valid", names_valid::check),
    ("offsets_aligned", offsets_aligned::check),
    ("offsets_in_range", offsets_in_range::check),
    ("arrays_valid", arrays_valid::check),
    ("fields_fit", fields_fit::check),
    ("fields_disjoint", fields_disjoint::check),
    ("values_fit", values_fit::check),
    ("registers_disjoint", registers_disjoint::check),
    ("descriptor_fields_fit", descriptor_fields_fit::check),
    ("descriptors_disjoint", descriptors_disjoint::check),
    ("soc_complete", soc_complete::check),
];

/// Runs every rule on every map, then the rules across maps; returns all diagnostics.
pub fn validate(maps: &[Map]) -> Vec<Diagnostic> {
    let mut diags = Vec::new();
    for map in maps {
        for (_, pass) in MAP_PASSES {
            pass(map, &mut diags);
        }
    }
    compatibles_unique::check(maps, &mut diags);
    layouts_shared::check(maps, &mut diags);
    type_names_unique::check(maps, &mut diags);
    diags
}

/// Names of the per-map passes (for documentation and tests).
pub fn pass_names() -> impl Iterator<Item = &'static str> {
    MAP_PASSES.iter().map(|(n, _)| *n).chain(["compatibles_unique", "layouts_shared", "type_names_unique"])
}
