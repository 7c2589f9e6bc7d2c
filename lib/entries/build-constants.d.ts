/** Set by the build (build/build.mjs `define`): the plugin's version from package.json. */
declare const __PLUGIN_VERSION__: string;
