export { getLoadablePath, load } from "./index.js";
export type { SqliteDatabase } from "./index.js";
