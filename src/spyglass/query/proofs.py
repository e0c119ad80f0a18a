"""Inferred sites that the pack's rules prove: listed certain (docs/contract.md "Accounting").

Two rules, each a manifest key of the pack:

* `import_binds_package_name` — an import binds the name its package clause declares
  (Go: `package jsoniter` at `github.com/json-iterator/go`), which the import path need
  not tell. The resolver, reading one file, guesses the package from the path; the view
  knows every file's package clause. A use ``q.Name`` resolved that way to a
  package-level definition is proven when the definition's file declares the package
  ``q``: one import only may bind a name in a file, and no package-level name may share it.
* `typed_receivers_proven` — declared types are exact (Go): a member reached through a
  receiver whose type is declared (a typed parameter or variable, a struct field, a
  function's declared result, the method's receiver: an ``inst:`` or ``self`` head) is
  proven, each step being a declared type. Not when the receiver's type is itself named
  through a guessed package (``inst:…|free|pkg.T``), nor when the site's name has
  definitions of its own besides the one asked about (an alias reached it).
* `declared_results_proven` — a member of a call's result, through the callee's one
  declared result type (TypeScript `f().m`; query/result_proofs.py), given the target's
  closure names.
"""

from __future__ import annotations

from collections.abc import Callable, Collection

from spyglass.query import result_proofs
from spyglass.query.results import DefRow, RefRow
from spyglass.query.rows import defs_by_full
from spyglass.query.symbols import manifest_value
from spyglass.query.view import View
from spyglass.syntax import heads as H


def typed_receiver(r: RefRow) -> bool:
    """An inferred site on a receiver of declared type, for a pack whose declared types
    are exact (`typed_receivers_proven`)."""
    if r.conf != "inferred" or not r.qualifier or not manifest_value(
            r.language, "typed_receivers_proven"):
        return False
    kind, arg = H.split(H.untagged(r.head)[0])
    if kind == H.SELF:
        return True
    if kind != H.INST:
        return False
    _, type_head, type_text = H.parse_instance(arg)
    return not (H.split(type_head)[0] == H.FREE and "." in type_text)


def prover(view: View, d: DefRow, own: Collection[str] = ()) -> Callable[[RefRow], bool]:
    """Whether an inferred site of `d` is proven (module docstring); `own`: `d`'s closure
    names, for the rule of call results (none given: that rule is not tried)."""
    package = ""
    if manifest_value(d.language, "import_binds_package_name") and "#" in d.full \
            and "." not in d.full.split("#", 1)[1]:
        package = next((str(p) for (p,) in view.each(
            "SELECT u.package FROM {units} u WHERE u.id = ?", (d.unit,))), "")

    declared: dict[str, bool] = {}
    results = result_proofs.prover(view, own) if own and result_proofs.applies(d.language) \
        else None

    def has_own(target: str) -> bool:
        """Whether `target`, a name other than `d`'s, has definitions of its own: an alias
        leading from it to `d` (`Alerts.* → Alert.*` of `type Alerts []*Alert`) then
        stands beside them (`as.String()` may be the container's own String), unproven."""
        if target not in declared:
            declared[target] = bool(defs_by_full(view, [target]))
        return declared[target]

    def proven(r: RefRow) -> bool:
        if results is not None and results(r):
            return True
        if r.conf != "inferred":
            return False
        if package and r.target == d.full and r.qualifier == package \
                and H.split(H.untagged(r.head)[0])[0] == H.FREE:
            return True
        return typed_receiver(r) and (not r.target or r.target == d.full
                                      or not has_own(r.target))
    return proven


__all__ = ["prover", "typed_receiver"]
