//! Validation: one rule per pass, each in its own file, each reporting every violation it finds.

mod arrays_valid;
mod compatibles_unique;
mod descriptor_fields_fit;
mod descriptors_disjoint;
mod descriptors_shared;
mod enum_incomplete;
mod enum_values_unique;
mod field_arrays_valid;
mod field_idents_unique;
mod fields_disjoint;
mod fields_fit;
mod idents_not_keywords;
mod irq_moderation_fits;
mod irq_names_valid;
mod layouts_shared;
mod module_names_unique;
mod names_valid;
mod offsets_aligned;
mod offsets_in_range;
mod path_setup_complete;
mod path_setup_modes;
mod path_setup_targets;
mod path_setup_unambiguous;
mod path_setup_values_fit;
mod register_has_fields;
mod registers_disjoint;
mod reset_outside_fields;
mod reset_sets_write_only;
mod soc_complete;
pub mod spaces_located;
mod type_names_unique;
mod values_fit;
mod variant_idents_unique;

use crate::model::Map;
use crate::source::{Diagnostic, Severity};
use std::collections::HashSet;

/// A rule checked on one resolved map.
type MapPass = fn(&Map, &mut Vec<Diagnostic>);

/// Rules on one map, in the order they run.
const MAP_PASSES: &[(&str, MapPass)] = &[
    ("names_valid", names_valid::check),
    ("field_idents_unique", field_idents_unique::check),
    ("variant_idents_unique", variant_idents_unique::check),
    ("idents_not_keywords", idents_not_keywords::check),
    ("offsets_aligned", offsets_aligned::check),
    ("offsets_in_range", offsets_in_range::check),
    ("arrays_valid", arrays_valid::check),
    ("fields_fit", fields_fit::check),
    ("field_arrays_valid", field_arrays_valid::check),
    ("fields_disjoint", fields_disjoint::check),
    ("values_fit", values_fit::check),
    ("enum_values_unique", enum_values_unique::check),
    ("reset_outside_fields", reset_outside_fields::check),
    ("registers_disjoint", registers_disjoint::check),
    ("descriptor_fields_fit", descriptor_fields_fit::check),
    ("descriptors_disjoint", descriptors_disjoint::check),
    ("soc_complete", soc_complete::check),
    ("irq_moderation_fits", irq_moderation_fits::check),
    ("irq_names_valid", irq_names_valid::check),
    ("spaces_located", spaces_located::check),
    ("path_setup_targets", path_setup_targets::check),
    ("path_setup_values_fit", path_setup_values_fit::check),
    ("path_setup_modes", path_setup_modes::check),
    ("path_setup_unambiguous", path_setup_unambiguous::check),
    ("path_setup_complete", path_setup_complete::check),
    // Warnings: legal but suspicious.
    ("register_has_fields", register_has_fields::check),
    ("reset_sets_write_only", reset_sets_write_only::check),
    ("enum_incomplete", enum_incomplete::check),
];

/// Runs every rule on every map, then the rules across maps; returns all diagnostics.
///
/// A map inherits the items of its base, so a problem in an inherited item is found once per map
/// that has it; those repeats (same severity, place and message) are reported once.
pub fn validate(maps: &[Map]) -> Vec<Diagnostic> {
    let mut diags = Vec::new();
    for map in maps {
        for (_, pass) in MAP_PASSES {
            pass(map, &mut diags);
        }
    }
    compatibles_unique::check(maps, &mut diags);
    layouts_shared::check(maps, &mut diags);
    descriptors_shared::check(maps, &mut diags);
    type_names_unique::check(maps, &mut diags);
    module_names_unique::check(maps, &mut diags);
    let mut seen = HashSet::new();
    diags.retain(|d| seen.insert((d.severity == Severity::Error, d.span, d.message.clone(), d.label.clone())));
    diags
}

/// Names of every pass, per-map ones first, then the cross-map ones (for documentation and tests).
pub fn pass_names() -> impl Iterator<Item = &'static str> {
    MAP_PASSES.iter().map(|(n, _)| *n).chain([
        "compatibles_unique",
        "layouts_shared",
        "descriptors_shared",
        "type_names_unique",
        "module_names_unique",
    ])
}
