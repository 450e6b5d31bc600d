// The fake `obsidian` module checked against the official typings (npm `obsidian`), by `npm run typecheck` (and so by
// CI): every part of the API the plugin uses must have the official type in the fake, so that the tests run the
// plugin on what Obsidian really offers. Compiled only (never run). The parts are those the plugin calls; a new call
// into the API belongs here too.
import type * as Real from "obsidian";
import * as fake from "./index.cjs";

declare const app: ReturnType<typeof fake.createApp>;
type VaultPart = Pick<Real.Vault, "read" | "cachedRead" | "process" | "create" | "createFolder" | "getAbstractFileByPath" | "getFileByPath" | "getRoot" | "configDir" | "getFiles" | "getMarkdownFiles" | "getAllLoadedFiles" | "getName" | "on" | "offref">;
export const vault: VaultPart = app.vault;
type CachePart = Pick<Real.MetadataCache, "getFileCache" | "getFirstLinkpathDest" | "resolvedLinks" | "unresolvedLinks" | "on" | "offref">;
export const cache: CachePart = app.metadataCache;
type FilesPart = Pick<Real.FileManager, "processFrontMatter" | "renameFile" | "trashFile">;
export const files: FilesPart = app.fileManager;
type WorkspacePart = Pick<Real.Workspace, "getActiveFile" | "getActiveViewOfType" | "getLastOpenFiles" | "getLeaf">;
export const workspace: WorkspacePart = app.workspace;
type LeafPart = Pick<Real.WorkspaceLeaf, "openFile">;
export const leaf: LeafPart = app.workspace.getLeaf("tab");

// The settings tab asks `adapter instanceof FileSystemAdapter`, so the class is exported too.
type AdapterPart = Pick<Real.FileSystemAdapter, "getBasePath">;
export const adapter: AdapterPart = app.vault.adapter;
export const adapterClass: new (basePath: string) => AdapterPart = fake.FileSystemAdapter;

type FilePart = Pick<Real.TFile, "path" | "name" | "basename" | "extension" | "stat" | "parent">;
export const file = (entry: InstanceType<typeof fake.TFile>): FilePart => entry;
type FolderPart = Pick<Real.TFolder, "path" | "name" | "children" | "isRoot">;
export const folder = (entry: InstanceType<typeof fake.TFolder>): FolderPart => entry;
// Widgets chain (`setName(…): this`), which a Pick of the real class cannot express for another class: for them the
// check is that every member the plugin calls exists (a missing one is a compile error naming it).
type Members<T, Wanted extends PropertyKey> = Exclude<Wanted, keyof T>;
type SettingCalls = "setName" | "setDesc" | "setHeading" | "addText" | "addTextArea" | "addToggle" | "addButton" | "descEl" | "components";
export const settingMembers: Members<InstanceType<typeof fake.Setting>, Exclude<SettingCalls, "components">> extends never ? true : never = true;
type ElementCalls = "createDiv" | "createEl" | "setText" | "empty" | "toggleClass";
export const elementMembers: Members<InstanceType<typeof fake.Setting>["descEl"], ElementCalls> extends never ? true : never = true;
type PluginCalls = "loadData" | "saveData" | "addSettingTab" | "register" | "registerEvent" | "app";
export const pluginMembers: Members<InstanceType<typeof fake.Plugin>, PluginCalls> extends never ? true : never = true;
type NoticeClass = new (message: string, duration?: number) => unknown;
export const notice: NoticeClass = fake.Notice;
