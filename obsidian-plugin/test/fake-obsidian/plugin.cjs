// The plugin half of the fake `obsidian` module: Plugin (with the lifecycle of Component), the settings tab and its
// widgets, and Notice, shaped after the official typings (obsidian 1.13) but only as far as obsmcp calls them and its
// tests read them. Elements are tiny in-memory objects, not a DOM: tests read their text and fire their callbacks,
// which is all a settings tab needs to be exercised.
"use strict";

const fs = require("node:fs");
const path = require("node:path");

/** A minimal element: children, text, classes, and the helpers Obsidian adds to HTMLElement that the plugin calls. */
class FakeElement {
  constructor(options = {}) {
    this.children = [];
    this.className = "";
    this._text = "";
    if (options.text !== undefined) this._text = String(options.text);
    if (options.cls !== undefined) this.className = Array.isArray(options.cls) ? options.cls.join(" ") : options.cls;
  }
  get textContent() {
    return this._text + this.children.map((child) => child.textContent).join("");
  }
  set textContent(value) {
    this._text = String(value);
    this.children = [];
  }
  /** @type {HTMLElement["setText"]} */
  setText(value) {
    this.textContent = value;
    return this;
  }
  /** @type {HTMLElement["empty"]} */
  empty() {
    this.children = [];
    this._text = "";
  }
  /**
   * Obsidian's `createDiv`; the widgets make their elements with it too, as no test looks at a tag.
   * @type {HTMLElement["createDiv"]}
   */
  createDiv(options = {}) {
    const child = new FakeElement(options);
    this.children.push(child);
    return child;
  }
  /**
   * Obsidian's `createEl`: the tag is not kept either.
   * @type {HTMLElement["createEl"]}
   */
  createEl(_tag, options = {}) {
    return this.createDiv(options);
  }
  /** @type {HTMLElement["toggleClass"]} */
  toggleClass(name, on) {
    const others = this.className.split(" ").filter((each) => each !== "" && each !== name);
    this.className = (on ? [...others, name] : others).join(" ");
  }
  hasClass(name) {
    return this.className.split(" ").includes(name);
  }
  /** Every descendant (depth first), for tests that look for a piece of text or a class. */
  descendants() {
    return this.children.flatMap((child) => [child, ...child.descendants()]);
  }
}

/** Obsidian's lifecycle base: load/unload, and cleanup callbacks run on unload in reverse order. */
class Component {
  constructor() {
    this._loaded = false;
    this._cleanups = [];
  }
  /** @type {import("obsidian/obsidian").Component["load"]} */
  load() {
    if (this._loaded) return undefined;
    this._loaded = true;
    const result = this.onload();
    // Real Obsidian ignores the value; returning onload's promise lets the host know when loading has finished.
    return result;
  }
  /** @type {import("obsidian/obsidian").Component["onload"]} */
  onload() {}
  /** @type {import("obsidian/obsidian").Component["unload"]} */
  unload() {
    if (!this._loaded) return;
    this._loaded = false;
    for (const cleanup of this._cleanups.splice(0).reverse()) cleanup();
    this.onunload();
  }
  /** @type {import("obsidian/obsidian").Component["onunload"]} */
  onunload() {}
  /** @type {import("obsidian/obsidian").Component["register"]} */
  register(callback) {
    this._cleanups.push(callback);
  }
  /**
   * Drops an event listener (`vault.on(…)`, `metadataCache.on(…)`) when the component unloads.
   * @type {import("obsidian/obsidian").Component["registerEvent"]}
   */
  registerEvent(ref) {
    this.register(() => ref.e.offref(ref));
  }
}

/** Every Notice shown in this process, oldest first, so tests can assert what the user was told. */
const shownNotices = [];

class Notice {
  /** @param {string | DocumentFragment} message */
  constructor(message) {
    this.message = String(message);
    shownNotices.push(this);
  }
}

/** The plugin base: settings are read and written in `<configDir>/plugins/<id>/data.json`, as Obsidian does. */
class Plugin extends Component {
  constructor(app, manifest) {
    super();
    /** @type {import("obsidian/obsidian").Plugin["app"]} */
    this.app = app;
    /** @type {import("obsidian/obsidian").Plugin["manifest"]} */
    this.manifest = manifest;
    this.settingTabs = [];
  }
  dataPath() {
    const dir = this.manifest.dir ?? path.posix.join(this.app.vault.configDir, "plugins", this.manifest.id);
    return path.join(this.app.vault.adapter.basePath, dir, "data.json");
  }
  /** @type {import("obsidian/obsidian").Plugin["loadData"]} */
  async loadData() {
    try {
      return JSON.parse(await fs.promises.readFile(this.dataPath(), "utf8"));
    } catch (error) {
      if (error && error.code === "ENOENT") return null;
      throw error;
    }
  }
  /** @type {import("obsidian/obsidian").Plugin["saveData"]} */
  async saveData(data) {
    const file = this.dataPath();
    await fs.promises.mkdir(path.dirname(file), { recursive: true });
    await fs.promises.writeFile(file, JSON.stringify(data, null, 2));
  }
  /** @type {import("obsidian/obsidian").Plugin["addSettingTab"]} */
  addSettingTab(tab) {
    this.settingTabs.push(tab);
    this.register(() => {
      this.settingTabs = this.settingTabs.filter((each) => each !== tab);
    });
  }
}

/** The settings tab a plugin extends (`display` fills `containerEl`; `hide` empties it, as Obsidian's does). */
class PluginSettingTab {
  constructor(app) {
    /** @type {import("obsidian/obsidian").PluginSettingTab["app"]} */
    this.app = app;
    /** @type {import("obsidian/obsidian").PluginSettingTab["containerEl"]} */
    this.containerEl = new FakeElement();
  }
  /** @type {import("obsidian/obsidian").PluginSettingTab["display"]} */
  display() {}
  /** @type {import("obsidian/obsidian").PluginSettingTab["hide"]} */
  hide() {
    this.containerEl.empty();
  }
}

// The widgets a Setting row can hold; tests drive them through `trigger` and `click`. A text field's placeholder and
// a button's warning style are for people to see, and no test reads them, so they are accepted and not kept.

/**
 * What text fields and toggles share; `T` is the value's type (string, boolean), as in the typings'
 * `AbstractTextComponent` and `ToggleComponent`.
 * @template T
 */
class ValueComponent {
  constructor() {
    this.value = undefined;
    this.changeHandler = undefined;
  }
  /**
   * @param {T} value
   * @returns {this}
   */
  setValue(value) {
    this.value = value;
    return this;
  }
  /**
   * @param {(value: T) => any} callback
   * @returns {this}
   */
  onChange(callback) {
    this.changeHandler = callback;
    return this;
  }
  /** What a user edit does: set the value, then run the change handler (returns its promise, if any). */
  trigger(value) {
    this.value = value;
    return this.changeHandler ? this.changeHandler(value) : undefined;
  }
}

/**
 * A text field, or a text area (the same to a test).
 * @extends {ValueComponent<string>}
 */
class TextComponent extends ValueComponent {
  constructor() {
    super();
    this.value = "";
  }
  /**
   * Chains as the typings' `TextComponent` does (its `this`, which an indexed type would fix to the real class).
   * @returns {this}
   */
  setPlaceholder() {
    return this;
  }
}

/** @extends {ValueComponent<boolean>} */
class ToggleComponent extends ValueComponent {
  constructor() {
    super();
    this.value = false;
  }
}

class ButtonComponent {
  constructor(containerEl) {
    /** @type {import("obsidian/obsidian").ButtonComponent["buttonEl"]} */
    this.buttonEl = containerEl.createDiv();
    this.clickHandler = undefined;
  }
  /**
   * Chains as the typings' `ButtonComponent` does (its `this`, which an indexed type would fix to the real class).
   * @param {Parameters<import("obsidian/obsidian").ButtonComponent["setButtonText"]>[0]} text
   * @returns {this}
   */
  setButtonText(text) {
    this.buttonEl.setText(text);
    return this;
  }
  /**
   * Chains as the typings' `ButtonComponent` does (its `this`, which an indexed type would fix to the real class).
   * @returns {this}
   */
  setWarning() {
    return this;
  }
  /**
   * Chains as the typings' `ButtonComponent` does (its `this`, which an indexed type would fix to the real class).
   * @param {Parameters<import("obsidian/obsidian").ButtonComponent["onClick"]>[0]} callback
   * @returns {this}
   */
  onClick(callback) {
    this.clickHandler = callback;
    return this;
  }
  /** What a click does: run the handler (returns its promise, if any). */
  click() {
    return this.clickHandler ? this.clickHandler(new Event("click")) : undefined;
  }
}

/** One row of a settings tab: name, description and controls. */
class Setting {
  constructor(containerEl) {
    /** @type {import("obsidian/obsidian").Setting["settingEl"]} */
    this.settingEl = containerEl.createDiv({ cls: "setting-item" });
    /** @type {import("obsidian/obsidian").Setting["infoEl"]} */
    this.infoEl = this.settingEl.createDiv({ cls: "setting-item-info" });
    /** @type {import("obsidian/obsidian").Setting["nameEl"]} */
    this.nameEl = this.infoEl.createDiv({ cls: "setting-item-name" });
    /** @type {import("obsidian/obsidian").Setting["descEl"]} */
    this.descEl = this.infoEl.createDiv({ cls: "setting-item-description" });
    /** @type {import("obsidian/obsidian").Setting["controlEl"]} */
    this.controlEl = this.settingEl.createDiv({ cls: "setting-item-control" });
    this.components = [];
    this.settingEl.setting = this;
  }
  /**
   * Chains as the typings' `Setting` does.
   * @param {Parameters<import("obsidian/obsidian").Setting["setName"]>[0]} name
   * @returns {this}
   */
  setName(name) {
    this.nameEl.setText(name);
    return this;
  }
  /**
   * Chains as the typings' `Setting` does.
   * @param {Parameters<import("obsidian/obsidian").Setting["setDesc"]>[0]} desc
   * @returns {this}
   */
  setDesc(desc) {
    this.descEl.setText(desc);
    return this;
  }
  /**
   * Makes the row a section heading (Obsidian marks it with this class).
   * @returns {this}
   */
  setHeading() {
    this.settingEl.toggleClass("setting-item-heading", true);
    return this;
  }
  addComponent(Kind, callback) {
    const component = new Kind(this.controlEl);
    this.components.push(component);
    callback(component);
    return this;
  }
  /**
   * Chains as the typings' `Setting` does.
   * @param {Parameters<import("obsidian/obsidian").Setting["addText"]>[0]} callback
   * @returns {this}
   */
  addText(callback) {
    return this.addComponent(TextComponent, callback);
  }
  /**
   * Chains as the typings' `Setting` does.
   * @param {Parameters<import("obsidian/obsidian").Setting["addTextArea"]>[0]} callback
   * @returns {this}
   */
  addTextArea(callback) {
    return this.addComponent(TextComponent, callback);
  }
  /**
   * Chains as the typings' `Setting` does.
   * @param {Parameters<import("obsidian/obsidian").Setting["addToggle"]>[0]} callback
   * @returns {this}
   */
  addToggle(callback) {
    return this.addComponent(ToggleComponent, callback);
  }
  /**
   * Chains as the typings' `Setting` does.
   * @param {Parameters<import("obsidian/obsidian").Setting["addButton"]>[0]} callback
   * @returns {this}
   */
  addButton(callback) {
    return this.addComponent(ButtonComponent, callback);
  }
}

module.exports = { Plugin, PluginSettingTab, Setting, TextComponent, ToggleComponent, ButtonComponent, Notice, shownNotices };
