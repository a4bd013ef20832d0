// The ES module entry point: the same functions as the CommonJS one.
import api from "./index.js";

export const { getLoadablePath, load } = api;
