// Host handlers for ScriptApp's installable triggers (clock, spreadsheet edit/open), capped at 20 per script.
import { randomInt } from 'node:crypto';
import { GasError } from '../spreadsheet-model.mjs';

export const MAX_TRIGGERS = 20; // [GAS-QUOTA] 20 triggers / user / script

export const triggerRef = (t) => ({ __ref: 'Trigger', h: { ...t } });

export const scriptHandlers = {
  ScriptApp: {
    createTrigger: (x, h, [spec]) => {
      const host = x.host;
      if (host.triggers.length >= MAX_TRIGGERS) throw new GasError('This script has too many triggers. Triggers must be deleted from the script before more can be added.');
      if (spec.source === 'SPREADSHEETS' && spec.sourceId !== host.ss.id) throw new GasError(`Unexpected error while getting the method or property forSpreadsheet on object ScriptApp.`);
      const t = { id: String(randomInt(1e9, 2 ** 47)) + String(randomInt(1e5, 1e6)), handler: String(spec.handler), type: spec.type, source: spec.source };
      if (spec.sourceId) t.sourceId = spec.sourceId;
      if (spec.everyMinutes) t.everyMinutes = spec.everyMinutes;
      if (spec.everyHours) t.everyHours = spec.everyHours;
      host.triggers.push(t);
      host.markDirty();
      return triggerRef(t);
    },
    getProjectTriggers: (x) => x.host.triggers.map(triggerRef),
    getUserTriggers: (x) => x.host.triggers.map(triggerRef),
    deleteTrigger: (x, h, [t]) => {
      const id = t && t.h ? t.h.id : null;
      x.host.triggers = x.host.triggers.filter((u) => u.id !== id);
      x.host.markDirty();
    },
  },
};
