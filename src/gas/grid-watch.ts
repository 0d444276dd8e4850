// Measures the spreadsheet's grid (at most hourly) and raises or clears GRID_NEARLY_FULL with the days left.
import { assessGrid, GRID_SAMPLES_PROPERTY, isGridCheckDue, parseGridSamples } from '../core/domain/queue/grid-capacity';
import type { IncidentSink, PropertyStore } from '../core/domain/ports';

export function watchGrid(spreadsheet: GoogleAppsScript.Spreadsheet.Spreadsheet, props: PropertyStore, incidents: IncidentSink, snapshot: Readonly<Record<string, string>>, now: number): void {
  const samples = parseGridSamples(snapshot[GRID_SAMPLES_PROPERTY]);
  if (!isGridCheckDue(samples, now)) return;
  // Every grid cell counts, empty or not: the grid's size, not the data's.
  const cells = spreadsheet.getSheets().reduce((sum, sheet) => sum + sheet.getMaxRows() * sheet.getMaxColumns(), 0);
  const assessment = assessGrid(samples, cells, now);
  props.set(GRID_SAMPLES_PROPERTY, JSON.stringify(assessment.samples));
  if (assessment.warning) incidents.raise('GRID_NEARLY_FULL', assessment.warning);
  else incidents.clear('GRID_NEARLY_FULL');
}
