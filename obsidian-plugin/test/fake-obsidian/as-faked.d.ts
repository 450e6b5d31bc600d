// The `obsidian` module as the fake offers it, for `npm run typecheck` (tsconfig.plugin.json compiles the plugin's
// sources against this instead of the official typings): every official type, except that the app's services
// (`app.vault`, `app.metadataCache`, `app.workspace`, `app.fileManager`) keep only the members the fake has, with the
// official types the fake declares for them. So a call the plugin starts making into a member the fake lacks fails
// the typecheck here while it still compiles against the real typings: the fake must grow the member first.
// The official typings are imported as `obsidian/obsidian` (their file), a name the mapping of `obsidian` leaves alone;
// the fake's JSDoc names them the same way.
import type * as Real from "obsidian/obsidian";
import type * as fake from "./index.cjs";

export type * from "obsidian/obsidian";
export {
  Notice,
  Plugin,
  Setting,
  TFile,
  TFolder,
  TAbstractFile,
  MarkdownView,
  FileSystemAdapter,
  parseYaml,
  getFrontMatterInfo,
  moment,
} from "obsidian/obsidian";

type FakeApp = ReturnType<typeof fake.createApp>;
/** The official type cut down to the members the fake has. */
type AsFaked<Official, Fake> = Pick<Official, keyof Official & keyof Fake>;

/** The app as the plugin may use it: the services the fake has, with the members it has. */
export interface App {
  vault: AsFaked<Real.Vault, FakeApp["vault"]>;
  metadataCache: AsFaked<Real.MetadataCache, FakeApp["metadataCache"]>;
  workspace: AsFaked<Real.Workspace, FakeApp["workspace"]>;
  fileManager: AsFaked<Real.FileManager, FakeApp["fileManager"]>;
}

/** The settings tab takes that app (Obsidian hands it the real one, which is assignable). */
export declare abstract class PluginSettingTab extends Real.PluginSettingTab {
  constructor(app: App, plugin: Real.Plugin);
}
