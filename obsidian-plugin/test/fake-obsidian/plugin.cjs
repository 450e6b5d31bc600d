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
  setText(value) {
    this.textContent = value;
    return this;
  }
  empty() {
    this.children = [];
    this._text = "";
  }
  /** Obsidian's `createDiv`; the widgets make their elements with it too, as no test looks at a tag. */
  createDiv(options = {}) {
    const child = new FakeElement(options);
    this.children.push(child);
    return child;
  }
  /** Obsidian's `createEl`: the tag is not kept either. */
  createEl(_tag, options = {}) {
    return this.createDiv(options);
  }
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
  load() {
    if (this._loaded) return undefined;
    this._loaded = true;
    const result = this.onload();
    // Real Obsidian ignores the value; returning onload's promise lets the host know when loading has finished.
    return result;
  }
  onload() {}
  unload() {
    if (!this._loaded) return;
    this._loaded = false;
    for (const cleanup of this._cleanups.splice(0).reverse()) cleanup();
    this.onunload();
  }
  onunload() {}
  register(callback) {
    this._cleanups.push(callback);
  }
  /** Drops an event listener (`vault.on(…)`, `metadataCache.on(…)`) when the component unloads. */
  registerEvent(ref) {
    this.register(() => ref.e.offref(ref));
  }
}

/** Every Notice shown in this process, oldest first, so tests can assert what the user was told. */
const shownNotices = [];

class Notice {
  constructor(message) {
    this.message = String(message);
    shownNotices.push(this);
  }
}

/** The plugin base: settings are read and written in `<configDir>/plugins/<id>/data.json`, as Obsidian does. */
class Plugin extends Component {
  constructor(app, manifest) {
    super();
    this.app = app;
    this.manifest = manifest;
    this.settingTabs = [];
  }
  dataPath() {
    const dir = this.manifest.dir ?? path.posix.join(this.app.vault.configDir, "plugins", this.manifest.id);
    return path.join(this.app.vault.adapter.basePath, dir, "data.json");
  }
  async loadData() {
    try {
      return JSON.parse(await fs.promises.readFile(this.dataPath(), "utf8"));
    } catch (error) {
      if (error && error.code === "ENOENT") return null;
      throw error;
    }
  }
  async saveData(data) {
    const file = this.dataPath();
    await fs.promises.mkdir(path.dirname(file), { recursive: true });
    await fs.promises.writeFile(file, JSON.stringify(data, null, 2));
  }
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
    this.app = app;
    this.containerEl = new FakeElement();
  }
  display() {}
  hide() {
    this.containerEl.empty();
  }
}

// The widgets a Setting row can hold; tests drive them through `trigger` and `click`. A text field's placeholder and
// a button's warning style are for people to see, and no test reads them, so they are accepted and not kept.

class ValueComponent {
  constructor() {
    this.value = undefined;
    this.changeHandler = undefined;
  }
  setValue(value) {
    this.value = value;
    return this;
  }
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

/** A text field, or a text area (the same to a test). */
class TextComponent extends ValueComponent {
  constructor() {
    super();
    this.value = "";
  }
  setPlaceholder() {
    return this;
  }
}

class ToggleComponent extends ValueComponent {
  constructor() {
    super();
    this.value = false;
  }
}

class ButtonComponent {
  constructor(containerEl) {
    this.el = containerEl.createDiv();
    this.clickHandler = undefined;
  }
  setButtonText(text) {
    this.el.setText(text);
    return this;
  }
  setWarning() {
    return this;
  }
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
    this.settingEl = containerEl.createDiv({ cls: "setting-item" });
    this.infoEl = this.settingEl.createDiv({ cls: "setting-item-info" });
    this.nameEl = this.infoEl.createDiv({ cls: "setting-item-name" });
    this.descEl = this.infoEl.createDiv({ cls: "setting-item-description" });
    this.controlEl = this.settingEl.createDiv({ cls: "setting-item-control" });
    this.components = [];
    this.settingEl.setting = this;
  }
  setName(name) {
    this.nameEl.setText(name);
    return this;
  }
  setDesc(desc) {
    this.descEl.setText(desc);
    return this;
  }
  /** Makes the row a section heading (Obsidian marks it with this class). */
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
  addText(callback) {
    return this.addComponent(TextComponent, callback);
  }
  addTextArea(callback) {
    return this.addComponent(TextComponent, callback);
  }
  addToggle(callback) {
    return this.addComponent(ToggleComponent, callback);
  }
  addButton(callback) {
    return this.addComponent(ButtonComponent, callback);
  }
}

module.exports = { Plugin, PluginSettingTab, Setting, Notice, shownNotices };
