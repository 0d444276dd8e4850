// PropertyStore port over Script Properties.
import type { PropertyStore } from '../core/domain/ports';

export function createScriptPropertyStore(): PropertyStore {
  const store = PropertiesService.getScriptProperties();
  return {
    getAll: () => store.getProperties(),
    get: (key) => store.getProperty(key) ?? undefined,
    set: (key, value) => {
      store.setProperty(key, value);
    },
    setMany: (values) => {
      if (Object.keys(values).length > 0) store.setProperties(values);
    },
    delete: (key) => {
      store.deleteProperty(key);
    },
  };
}
