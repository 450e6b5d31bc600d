// The fake `obsidian` module checked against the official typings (npm `obsidian`), by `npm run typecheck` (and so by
// CI): every part of the API the plugin uses must be in the fake with the official type, so that the tests run the
// plugin on what Obsidian really offers. The fake's members carry those types in JSDoc (`@type {import("obsidian/
// obsidian").Vault["read"]}` and the like: `obsidian/obsidian` is the typings' file, see as-faked.d.ts), so a member
// listed here that the fake lacks, or types otherwise, fails. Compiled only (never run). The parts are those the
// plugin calls; a new call into the app's services is caught by tsconfig.plugin.json (the plugin compiled against
// as-faked.d.ts), and belongs here too.
import type * as Real from "obsidian";
import * as fake from "./index.cjs";

declare const app: ReturnType<typeof fake.createApp>;
type VaultPart = Pick<
  Real.Vault,
  | "read"
  | "cachedRead"
  | "process"
  | "create"
  | "createFolder"
  | "getAbstractFileByPath"
  | "getFileByPath"
  | "getRoot"
  | "configDir"
  | "getFiles"
  | "getMarkdownFiles"
  | "getAllLoadedFiles"
  | "getName"
  | "adapter"
  | "on"
  | "offref"
>;
export const vault: VaultPart = app.vault;
type CachePart = Pick<Real.MetadataCache, "getFileCache" | "getFirstLinkpathDest" | "resolvedLinks" | "unresolvedLinks" | "on" | "offref">;
export const cache: CachePart = app.metadataCache;
type FilesPart = Pick<Real.FileManager, "processFrontMatter" | "renameFile" | "trashFile">;
export const files: FilesPart = app.fileManager;
type WorkspacePart = Pick<Real.Workspace, "getActiveFile" | "getActiveViewOfType" | "getLastOpenFiles" | "getLeaf" | "layoutReady">;
export const workspace: WorkspacePart = app.workspace;
type LeafPart = Pick<Real.WorkspaceLeaf, "openFile">;
export const leaf: LeafPart = app.workspace.getLeaf("tab");
type ViewPart = Pick<Real.MarkdownView, "file" | "editor">;
export const view = (entry: InstanceType<typeof fake.MarkdownView>): ViewPart => entry;
type EditorPart = Pick<Real.Editor, "getSelection" | "getCursor">;
export const editor = (entry: InstanceType<typeof fake.MarkdownView>): EditorPart => entry.editor;

// The settings tab asks `adapter instanceof FileSystemAdapter`, so the class is exported too.
type AdapterPart = Pick<Real.FileSystemAdapter, "getBasePath" | "getName" | "getFullPath">;
export const adapter: AdapterPart = app.vault.adapter;
export const adapterClass: new (basePath: string) => AdapterPart = fake.FileSystemAdapter;

type FilePart = Pick<Real.TFile, "path" | "name" | "basename" | "extension" | "stat" | "parent" | "vault">;
export const file = (entry: InstanceType<typeof fake.TFile>): FilePart => entry;
type FolderPart = Pick<Real.TFolder, "path" | "name" | "children" | "isRoot" | "parent">;
export const folder = (entry: InstanceType<typeof fake.TFolder>): FolderPart => entry;

type PluginPart = Pick<Real.Plugin, "app" | "manifest" | "loadData" | "saveData" | "addSettingTab" | "register" | "registerEvent" | "load" | "unload" | "onload" | "onunload">;
export const plugin = (entry: InstanceType<typeof fake.Plugin>): PluginPart => entry;
type TabPart = Pick<Real.PluginSettingTab, "app" | "containerEl" | "display" | "hide">;
export const tab = (entry: InstanceType<typeof fake.PluginSettingTab>): TabPart => entry;
// Widgets chain (`setName(…): this`): a Pick of the real class would want the real class back, so a chaining member
// is checked as taking the typings' parameters and returning the fake itself.
type Chaining<Fake, R, K extends keyof R & keyof Fake> = { [M in K]: R[M] extends (...args: infer A) => unknown ? (...args: A) => Fake : never };
type FakeSetting = InstanceType<typeof fake.Setting>;
type SettingPart = Pick<Real.Setting, "settingEl" | "infoEl" | "nameEl" | "descEl" | "controlEl"> &
  Chaining<FakeSetting, Real.Setting, "setName" | "setDesc" | "setHeading" | "addText" | "addTextArea" | "addToggle" | "addButton">;
export const setting = (entry: FakeSetting): SettingPart => entry;
// The widgets a Setting hands to its callbacks.
type FakeText = InstanceType<typeof fake.TextComponent>;
export const text = (entry: FakeText): Chaining<FakeText, Real.TextComponent, "setValue" | "onChange" | "setPlaceholder"> => entry;
type FakeToggle = InstanceType<typeof fake.ToggleComponent>;
export const toggle = (entry: FakeToggle): Chaining<FakeToggle, Real.ToggleComponent, "setValue" | "onChange"> => entry;
type FakeButton = InstanceType<typeof fake.ButtonComponent>;
type ButtonPart = Pick<Real.ButtonComponent, "buttonEl"> & Chaining<FakeButton, Real.ButtonComponent, "setButtonText" | "setWarning" | "onClick">;
export const button = (entry: FakeButton): ButtonPart => entry;
type ElementPart = Pick<HTMLElement, "createDiv" | "createEl" | "setText" | "empty" | "toggleClass" | "textContent">;
export const element = (entry: InstanceType<typeof fake.Setting>): ElementPart => entry.descEl;
type NoticeClass = new (message: string | DocumentFragment, duration?: number) => unknown;
export const notice: NoticeClass = fake.Notice;

export const parseYaml: typeof Real.parseYaml = fake.parseYaml;
export const getFrontMatterInfo: typeof Real.getFrontMatterInfo = fake.getFrontMatterInfo;
export const moment: typeof Real.moment = fake.moment;
