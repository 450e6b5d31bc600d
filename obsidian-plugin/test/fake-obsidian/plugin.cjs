// The plugin half of the fake `obsidian` module: Component, Plugin, settings tab widgets and Notice, shaped after the
// official typings (obsidian 1.13) but only as far as obsmcp uses them. Elements are tiny in-memory objects, not a
// DOM: tests read their text and fire their callbacks, which is all a settings tab needs to be exercised.
"use strict";

const fs = require("node:fs");
const path = require("node:path");

/** A minimal element: children, text, classes, attributes, and the helpers Obsidian adds to HTMLElement. */
class FakeElement {
  constructor(tag = "div", options = {}) {
    this.tagName = tag.toUpperCase();
    this.children = [];
    this.parent = null;
    this.className = "";
    this.attributes = {};
    this._text = "";
    this.listeners = {};
    applyOptions(this, options);
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
  createEl(tag, options = {}, callback) {
    const child = new FakeElement(tag, typeof options === "string" ? { text: options } : options);
    child.parent = this;
    this.children.push(child);
    if (callback) callback(child);
    return child;
  }
  createDiv(options = {}, callback) {
    return this.createEl("div", options, callback);
  }
  createSpan(options = {}, callback) {
    return this.createEl("span", options, callback);
  }
  addClass(...names) {
    const present = new Set(this.className.split(" ").filter(Boolean));
    for (const name of names) present.add(name);
    this.className = [...present].join(" ");
  }
  removeClass(...names) {
    this.className = this.className.split(" ").filter((name) => name && !names.includes(name)).join(" ");
  }
  toggleClass(name, on) {
    if (on) this.addClass(name);
    else this.removeClass(name);
  }
  hasClass(name) {
    return this.className.split(" ").includes(name);
  }
  setAttr(name, value) {
    this.attributes[name] = value;
  }
  addEventListener(type, listener) {
    (this.listeners[type] ??= []).push(listener);
  }
  removeEventListener(type, listener) {
    this.listeners[type] = (this.listeners[type] ?? []).filter((each) => each !== listener);
  }
  remove() {
    if (this.parent) this.parent.children = this.parent.children.filter((child) => child !== this);
    this.parent = null;
  }
  /** Every descendant (depth first), for tests that look for a piece of text or a class. */
  descendants() {
    return this.children.flatMap((child) => [child, ...child.descendants()]);
  }
}

function applyOptions(element, options) {
  if (options.text !== undefined) element._text = String(options.text);
  if (options.cls !== undefined) element.className = Array.isArray(options.cls) ? options.cls.join(" ") : options.cls;
  if (options.attr) Object.assign(element.attributes, options.attr);
}

/** Obsidian's lifecycle base: load/unload, children, and cleanup callbacks run on unload in reverse order. */
class Component {
  constructor() {
    this._loaded = false;
    this._children = [];
    this._cleanups = [];
  }
  load() {
    if (this._loaded) return undefined;
    this._loaded = true;
    const result = this.onload();
    for (const child of this._children) child.load();
    // Real Obsidian ignores the value; returning onload's promise lets the host know when loading has finished.
    return result;
  }
  onload() {}
  unload() {
    if (!this._loaded) return;
    this._loaded = false;
    for (const child of this._children.splice(0)) child.unload();
    for (const cleanup of this._cleanups.splice(0).reverse()) cleanup();
    this.onunload();
  }
  onunload() {}
  addChild(component) {
    this._children.push(component);
    if (this._loaded) component.load();
    return component;
  }
  removeChild(component) {
    this._children = this._children.filter((child) => child !== component);
    component.unload();
    return component;
  }
  register(callback) {
    this._cleanups.push(callback);
  }
  registerEvent(eventRef) {
    this._cleanups.push(() => eventRef.detach());
  }
  registerDomEvent(element, type, callback, options) {
    element.addEventListener(type, callback, options);
    this._cleanups.push(() => element.removeEventListener(type, callback, options));
  }
  registerInterval(id) {
    this._cleanups.push(() => clearInterval(id));
    return id;
  }
}

/** Every Notice shown in this process, oldest first, so tests can assert what the user was told. */
const shownNotices = [];

class Notice {
  constructor(message, duration) {
    this.message = String(message);
    this.duration = duration;
    this.noticeEl = new FakeElement("div", { text: this.message });
    shownNotices.push(this);
  }
  setMessage(message) {
    this.message = String(message);
    this.noticeEl.setText(this.message);
    return this;
  }
  hide() {
    this.hidden = true;
  }
}

/** The plugin base: settings are read and written in `<configDir>/plugins/<id>/data.json`, as Obsidian does. */
class Plugin extends Component {
  constructor(app, manifest) {
    super();
    this.app = app;
    this.manifest = manifest;
    this.settingTabs = [];
    this.commands = [];
    this.statusBarItems = [];
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
  addCommand(command) {
    this.commands.push(command);
    return command;
  }
  addStatusBarItem() {
    const element = new FakeElement("div");
    this.statusBarItems.push(element);
    this.register(() => element.remove());
    return element;
  }
  addRibbonIcon() {
    return new FakeElement("div");
  }
}

class SettingTab {
  constructor(app) {
    this.app = app;
    this.containerEl = new FakeElement("div");
  }
  display() {}
  hide() {
    this.containerEl.empty();
  }
}

class PluginSettingTab extends SettingTab {
  constructor(app, plugin) {
    super(app);
    this.plugin = plugin;
  }
}

/** The value widgets a Setting row can hold; tests drive them through `trigger`. */
class BaseComponent {
  constructor(containerEl, tag) {
    this.el = containerEl.createEl(tag);
    this.disabled = false;
  }
  setDisabled(disabled) {
    this.disabled = disabled;
    return this;
  }
  then(callback) {
    callback(this);
    return this;
  }
}

class ValueComponent extends BaseComponent {
  constructor(containerEl, tag) {
    super(containerEl, tag);
    this.value = undefined;
    this.changeHandler = undefined;
  }
  getValue() {
    return this.value;
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

class TextComponent extends ValueComponent {
  constructor(containerEl) {
    super(containerEl, "input");
    this.inputEl = this.el;
    this.value = "";
  }
  setPlaceholder(placeholder) {
    this.placeholder = placeholder;
    return this;
  }
}

class TextAreaComponent extends ValueComponent {
  constructor(containerEl) {
    super(containerEl, "textarea");
    this.inputEl = this.el;
    this.value = "";
  }
  setPlaceholder(placeholder) {
    this.placeholder = placeholder;
    return this;
  }
}

class ToggleComponent extends ValueComponent {
  constructor(containerEl) {
    super(containerEl, "div");
    this.toggleEl = this.el;
    this.value = false;
  }
  setTooltip(tooltip) {
    this.tooltip = tooltip;
    return this;
  }
}

class ButtonComponent extends BaseComponent {
  constructor(containerEl) {
    super(containerEl, "button");
    this.buttonEl = this.el;
    this.clickHandler = undefined;
  }
  setButtonText(text) {
    this.text = text;
    this.el.setText(text);
    return this;
  }
  setIcon(icon) {
    this.icon = icon;
    return this;
  }
  setTooltip(tooltip) {
    this.tooltip = tooltip;
    return this;
  }
  setCta() {
    return this;
  }
  setWarning() {
    this.warning = true;
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

class ExtraButtonComponent extends ButtonComponent {}

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
  setClass(cls) {
    this.settingEl.addClass(cls);
    return this;
  }
  setHeading() {
    this.settingEl.addClass("setting-item-heading");
    return this;
  }
  setDisabled(disabled) {
    for (const component of this.components) component.setDisabled(disabled);
    return this;
  }
  setTooltip() {
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
    return this.addComponent(TextAreaComponent, callback);
  }
  addToggle(callback) {
    return this.addComponent(ToggleComponent, callback);
  }
  addButton(callback) {
    return this.addComponent(ButtonComponent, callback);
  }
  addExtraButton(callback) {
    return this.addComponent(ExtraButtonComponent, callback);
  }
}

module.exports = {
  FakeElement,
  Component,
  Plugin,
  SettingTab,
  PluginSettingTab,
  Setting,
  BaseComponent,
  ValueComponent,
  TextComponent,
  TextAreaComponent,
  ToggleComponent,
  ButtonComponent,
  ExtraButtonComponent,
  Notice,
  shownNotices,
};
