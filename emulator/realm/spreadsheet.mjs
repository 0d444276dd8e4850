// In-realm SpreadsheetApp facades (Spreadsheet, Sheet, Range, TextFinder, builders, Ui); stringified into the vm.
export function realmSpreadsheet(rt) {
  const G = globalThis;
  const info = rt.info;
  const col = function (n) { let s = ''; while (n > 0) { const m = (n - 1) % 26; s = String.fromCharCode(65 + m) + s; n = Math.floor((n - 1) / 26); } return s; };
  const a1 = function (h) {
    const c1 = col(h.c), c2 = col(h.c + h.nc - 1);
    if (h.open) return h.open === 1 ? c1 + ':' + c2 : c1 + h.r + ':' + c2;
    return h.nr === 1 && h.nc === 1 ? c1 + h.r : c1 + h.r + ':' + c2 + (h.r + h.nr - 1);
  };
  const range = function (h) { return rt.make('Range', h); };

  function textFinder(target, text) {
    return rt.make('TextFinder', { target: rt.toWire(target), text: String(text), opts: {}, after: null });
  }
  const opt = function (name) { return function (b) { this.__h.opts[name] = b === undefined ? true : !!b; return this; }; };

  rt.defineClass('Spreadsheet', {
    remote: ['getName', 'getSheetByName', 'getSheetById', 'getSheets', 'getNumSheets', 'insertSheet', 'deleteSheet', 'getActiveSheet', 'setActiveSheet',
      'getActiveRange', 'getActiveRangeList', 'getRange', 'getSpreadsheetTimeZone', 'getProtections', 'toast', 'rename'],
    local: {
      getId: function () { return this.__h.id; },
      getUrl: function () { return 'https://docs.google.com/spreadsheets/d/' + this.__h.id + '/edit'; },
    },
  });
  rt.defineClass('Sheet', {
    remote: ['getName', 'getIndex', 'getParent', 'getRange', 'getLastRow', 'getLastColumn', 'getMaxRows', 'getMaxColumns', 'getDataRange', 'getSheetValues',
      'deleteRow', 'deleteRows', 'deleteColumn', 'deleteColumns', 'getFrozenRows', 'getFrozenColumns', 'protect', 'getProtections', 'getConditionalFormatRules'],
    chain: ['setName', 'appendRow', 'insertColumnsAfter', 'insertRowsAfter', 'insertRowAfter', 'insertRowsBefore', 'insertRowBefore', 'setFrozenRows', 'setFrozenColumns',
      'setConditionalFormatRules', 'clear', 'clearContents', 'activate', 'setColumnWidth', 'setColumnWidths', 'autoResizeColumns', 'autoResizeColumn',
      'setTabColor', 'hideColumns', 'showColumns', 'setRowHeight', 'setRowHeights', 'hideSheet', 'showSheet'],
    local: {
      getSheetId: function () { return this.__h.sid; },
      createTextFinder: function (text) { return textFinder(this, text); },
    },
  });
  rt.defineClass('Range', {
    remote: ['getValues', 'getValue', 'getDisplayValues', 'getDisplayValue', 'getFormulas', 'getFormula', 'getNumberFormats', 'getNumberFormat',
      'getNote', 'getNotes', 'getDataValidation', 'getDataValidations', 'isBlank', 'protect'],
    chain: ['setValues', 'setValue', 'setFormula', 'setFormulas', 'clearContent', 'clear', 'clearFormat', 'clearNote', 'setNumberFormat', 'setNumberFormats',
      'setNote', 'setNotes', 'setDataValidation', 'clearDataValidations', 'activate', 'setBackground', 'setBackgrounds', 'setFontWeight', 'setFontWeights',
      'setFontColor', 'setFontColors', 'setFontFamily', 'setFontSize', 'setFontStyle', 'setWrap', 'setWrapStrategy', 'setHorizontalAlignment',
      'setVerticalAlignment', 'setBorder', 'setTextStyle', 'merge', 'breakApart', 'sort'],
    local: {
      getRow: function () { return this.__h.r; },
      getRowIndex: function () { return this.__h.r; },
      getColumn: function () { return this.__h.c; },
      getNumRows: function () { return this.__h.nr; },
      getNumColumns: function () { return this.__h.nc; },
      getLastRow: function () { return this.__h.r + this.__h.nr - 1; },
      getLastColumn: function () { return this.__h.c + this.__h.nc - 1; },
      getA1Notation: function () { return a1(this.__h); },
      getGridId: function () { return this.__h.sid; },
      getSheet: function () { return rt.make('Sheet', { sid: this.__h.sid }); },
      getCell: function (r, c) { const h = this.__h; return range({ sid: h.sid, r: h.r + r - 1, c: h.c + c - 1, nr: 1, nc: 1 }); },
      offset: function (dr, dc, nr, nc) { const h = this.__h; return range({ sid: h.sid, r: h.r + dr, c: h.c + dc, nr: nr || h.nr, nc: nc || h.nc }); },
      createTextFinder: function (text) { return textFinder(this, text); },
    },
  });
  rt.defineClass('RangeList', {
    local: {
      getRanges: function () { return this.__h.ranges.map(function (h) { return range(h); }); },
    },
  });
  rt.defineClass('TextFinder', {
    local: {
      matchCase: opt('matchCase'), matchEntireCell: opt('entireCell'), useRegularExpression: opt('regex'), matchFormulaText: opt('formulaText'), ignoreDiacritics: opt('ignoreDiacritics'),
      startFrom: function (r) { this.__h.after = { r: r.getRow(), c: r.getColumn() }; return this; },
      findNext: function () {
        const found = rt.call('TextFinder', 'findNext', this.__h, []);
        if (found) this.__h.after = { r: found.getRow(), c: found.getColumn() };
        return found;
      },
      findAll: function () { return rt.call('TextFinder', 'findAll', this.__h, []); },
    },
  });
  rt.defineClass('Protection', {
    remote: ['isWarningOnly', 'getDescription', 'getProtectionType', 'getRange', 'remove', 'getEditors', 'canEdit', 'canDomainEdit'],
    chain: ['setWarningOnly', 'setDescription', 'addEditor', 'addEditors', 'removeEditor', 'removeEditors', 'setDomainEdit'],
  });

  const criteria = rt.enumOf(['VALUE_IN_LIST', 'VALUE_IN_RANGE', 'CHECKBOX', 'TEXT_EQUAL_TO', 'TEXT_CONTAINS', 'NUMBER_BETWEEN', 'NUMBER_GREATER_THAN', 'CUSTOM_FORMULA', 'DATE_IS_VALID_DATE']);
  rt.defineClass('DataValidationBuilder', {
    local: {
      requireValueInList: function (values, showDropdown) { Object.assign(this.__h, { criteria: 'VALUE_IN_LIST', values: [values.slice(), showDropdown === undefined ? true : !!showDropdown] }); return this; },
      requireCheckbox: function () { Object.assign(this.__h, { criteria: 'CHECKBOX', values: Array.prototype.slice.call(arguments) }); return this; },
      requireFormulaSatisfied: function (f) { Object.assign(this.__h, { criteria: 'CUSTOM_FORMULA', values: [f] }); return this; },
      requireDate: function () { Object.assign(this.__h, { criteria: 'DATE_IS_VALID_DATE', values: [] }); return this; },
      setAllowInvalid: function (b) { this.__h.allowInvalid = !!b; return this; },
      setHelpText: function (t) { this.__h.helpText = String(t); return this; },
      build: function () {
        if (!this.__h.criteria) throw rt.err('Exception', 'You must set a criteria for the data validation rule.');
        return rt.make('DataValidation', JSON.parse(JSON.stringify(this.__h)));
      },
    },
  });
  rt.defineClass('DataValidation', {
    local: {
      getCriteriaType: function () { return this.__h.criteria; },
      getCriteriaValues: function () { return rt.toRealm(this.__h.values); },
      getAllowInvalid: function () { return this.__h.allowInvalid; },
      getHelpText: function () { return this.__h.helpText || null; },
      copy: function () { return rt.make('DataValidationBuilder', JSON.parse(JSON.stringify(this.__h))); },
    },
  });

  const cond = function (type) { return function () { this.__h.condition = { type: type, values: rt.toWire(Array.prototype.slice.call(arguments)) }; return this; }; };
  const fmt = function (key) { return function (v) { this.__h.format[key] = v; return this; }; };
  rt.defineClass('ConditionalFormatRuleBuilder', {
    local: {
      whenTextEqualTo: cond('TEXT_EQUAL_TO'), whenTextContains: cond('TEXT_CONTAINS'), whenTextStartsWith: cond('TEXT_STARTS_WITH'), whenTextEndsWith: cond('TEXT_ENDS_WITH'),
      whenNumberGreaterThan: cond('NUMBER_GREATER_THAN'), whenNumberLessThan: cond('NUMBER_LESS_THAN'), whenNumberEqualTo: cond('NUMBER_EQUAL_TO'),
      whenFormulaSatisfied: cond('CUSTOM_FORMULA'), whenCellEmpty: cond('CELL_EMPTY'), whenCellNotEmpty: cond('CELL_NOT_EMPTY'),
      setBackground: fmt('background'), setFontColor: fmt('fontColor'), setBold: fmt('bold'), setItalic: fmt('italic'), setStrikethrough: fmt('strikethrough'),
      setRanges: function (ranges) { this.__h.ranges = rt.toWire(ranges); return this; },
      build: function () {
        if (!this.__h.condition) throw rt.err('Exception', 'You must set a condition for the conditional format rule.');
        return rt.make('ConditionalFormatRule', JSON.parse(JSON.stringify(this.__h)));
      },
    },
  });
  rt.defineClass('ConditionalFormatRule', {
    local: {
      getRanges: function () { return rt.toRealm(this.__h.ranges); },
      getBooleanCondition: function () { return rt.make('BooleanCondition', this.__h); },
      getGradientCondition: function () { return null; },
      copy: function () { return rt.make('ConditionalFormatRuleBuilder', JSON.parse(JSON.stringify(this.__h))); },
    },
  });
  rt.defineClass('BooleanCondition', {
    local: {
      getCriteriaType: function () { return this.__h.condition.type; },
      getCriteriaValues: function () { return rt.toRealm(this.__h.condition.values); },
      getBackground: function () { return this.__h.format.background || null; },
      getFontColor: function () { return this.__h.format.fontColor || null; },
      getBold: function () { return this.__h.format.bold === undefined ? null : this.__h.format.bold; },
    },
  });

  const Button = rt.enumOf(['OK', 'CANCEL', 'YES', 'NO', 'CLOSE']);
  const ButtonSet = rt.enumOf(['OK', 'OK_CANCEL', 'YES_NO', 'YES_NO_CANCEL']);
  rt.defineClass('Menu', {
    local: {
      addItem: function (caption, fn) { this.__h.items.push({ caption: String(caption), functionName: String(fn) }); return this; },
      addSeparator: function () { this.__h.items.push({ separator: true }); return this; },
      addSubMenu: function (m) { this.__h.items.push({ caption: m.__h.caption, items: m.__h.items }); return this; },
      addToUi: function () { rt.call('Ui', 'addMenu', {}, [this.__h]); },
    },
  });
  rt.defineClass('PromptResponse', {
    local: {
      getResponseText: function () { return this.__h.text; },
      getSelectedButton: function () { return this.__h.button; },
    },
  });
  rt.defineClass('Ui', {
    remote: ['alert', 'showModalDialog', 'showModelessDialog', 'showSidebar'],
    local: {
      createMenu: function (caption) { return rt.make('Menu', { caption: String(caption), items: [] }); },
      createAddonMenu: function () { return rt.make('Menu', { caption: 'Extensions', addon: true, items: [] }); },
      prompt: function () { return rt.make('PromptResponse', rt.call('Ui', 'prompt', {}, Array.prototype.slice.call(arguments))); },
      Button: Button,
      ButtonSet: ButtonSet,
    },
  });

  G.SpreadsheetApp = rt.service('SpreadsheetApp', {
    openById: function (id) { return rt.call('SpreadsheetApp', 'openById', null, [id]); },
    openByUrl: function (url) { return rt.call('SpreadsheetApp', 'openByUrl', null, [url]); },
    getActiveSpreadsheet: function () { return rt.call('SpreadsheetApp', 'getActiveSpreadsheet', null, []); },
    getActive: function () { return rt.call('SpreadsheetApp', 'getActive', null, []); },
    getActiveSheet: function () { return rt.call('SpreadsheetApp', 'getActiveSheet', null, []); },
    getActiveRange: function () { return rt.call('SpreadsheetApp', 'getActiveRange', null, []); },
    getActiveRangeList: function () { return rt.call('SpreadsheetApp', 'getActiveRangeList', null, []); },
    flush: function () { rt.call('SpreadsheetApp', 'flush', null, []); },
    /** No UI exists in web-app or time-driven executions ("Cannot call SpreadsheetApp.getUi() from this context."). */
    getUi: function () {
      if (info.kind === 'webapp' || info.kind === 'trigger') throw rt.err('Exception', 'Cannot call SpreadsheetApp.getUi() from this context.');
      return rt.make('Ui', {});
    },
    newDataValidation: function () { return rt.make('DataValidationBuilder', { allowInvalid: true }); },
    newConditionalFormatRule: function () { return rt.make('ConditionalFormatRuleBuilder', { format: {}, ranges: [] }); },
    ProtectionType: rt.enumOf(['RANGE', 'SHEET']),
    DataValidationCriteria: criteria,
    BooleanCriteria: rt.enumOf(['TEXT_EQUAL_TO', 'TEXT_CONTAINS', 'TEXT_STARTS_WITH', 'TEXT_ENDS_WITH', 'NUMBER_GREATER_THAN', 'NUMBER_LESS_THAN', 'NUMBER_EQUAL_TO', 'CUSTOM_FORMULA', 'CELL_EMPTY', 'CELL_NOT_EMPTY']),
    WrapStrategy: rt.enumOf(['WRAP', 'OVERFLOW', 'CLIP']),
    BorderStyle: rt.enumOf(['DOTTED', 'DASHED', 'SOLID', 'SOLID_MEDIUM', 'SOLID_THICK', 'DOUBLE']),
  });
}
