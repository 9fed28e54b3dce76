// SPDX-License-Identifier: GPL-3.0-or-later
// The entry point for GNOME Shell 43 and 44 (legacy imports). The build installs it as
// extension.js beside the legacy builds of ui.js and state.js.
/* exported init */
const {Clutter, Gio, GLib, GObject, St} = imports.gi;
const Gettext = imports.gettext;
const Main = imports.ui.main;
const PopupMenu = imports.ui.popupMenu;
const QuickSettings = imports.ui.quickSettings;
const Config = imports.misc.config;
const ExtensionUtils = imports.misc.extensionUtils;

const Me = ExtensionUtils.getCurrentExtension();
const Pacer = Me.imports.ui;

class Extension {
    enable() {
        const modules = {
            Clutter, Gio, GLib, GObject, St, Gettext, Main, PopupMenu, QuickSettings, Config,
        };
        this._pacer = Pacer.enable(modules, Me.metadata, Me.dir);
    }

    disable() {
        this._pacer.destroy();
        this._pacer = null;
    }
}

/**
 * @returns {Extension}
 */
function init() {
    return new Extension();
}
