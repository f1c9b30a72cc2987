/**
 * Krippendorff's alpha, nominal, by coincidences as Krippendorff (2011, "Computing Krippendorff's
 * alpha-reliability") prescribes: missing labels skipped, units with fewer than two labels dropped.
 */
export function krippendorffAlphaNominal(units: ReadonlyArray<ReadonlyArray<string | null | undefined>>): {
  alpha: number | null;
  pairable_values: number;
  pairable_units: number;
} {
  const coincidence = new Map<string, Map<string, number>>();
  const add = (c: string, k: string, value: number) => {
    const row = coincidence.get(c) ?? new Map<string, number>();
    coincidence.set(c, row);
    row.set(k, (row.get(k) ?? 0) + value);
  };
  let pairableValues = 0;
  let pairableUnits = 0;
  for (const unit of units) {
    const values = unit.filter((value): value is string => value !== null && value !== undefined);
    const m = values.length;
    if (m < 2) continue;
    pairableUnits += 1;
    pairableValues += m;
    for (let i = 0; i < m; i += 1) {
      for (let j = 0; j < m; j += 1) {
        if (i !== j) add(values[i]!, values[j]!, 1 / (m - 1));
      }
    }
  }
  if (pairableValues < 2)
    return { alpha: null, pairable_values: pairableValues, pairable_units: pairableUnits };
  const totals = new Map<string, number>();
  for (const [label, row] of coincidence)
    totals.set(
      label,
      [...row.values()].reduce((sum, value) => sum + value, 0),
    );
  let observedDisagreement = 0;
  for (const [c, row] of coincidence) {
    for (const [k, value] of row) if (c !== k) observedDisagreement += value;
  }
  let expectedDisagreement = 0;
  for (const [c, nc] of totals) {
    for (const [k, nk] of totals) if (c !== k) expectedDisagreement += nc * nk;
  }
  if (expectedDisagreement === 0) {
    return { alpha: null, pairable_values: pairableValues, pairable_units: pairableUnits };
  }
  const alpha = 1 - ((pairableValues - 1) * observedDisagreement) / expectedDisagreement;
  return { alpha, pairable_values: pairableValues, pairable_units: pairableUnits };
}
