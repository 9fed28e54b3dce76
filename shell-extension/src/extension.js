// SPDX-License-Identifier: GPL-3.0-or-later
// The entry point for GNOME Shell 45 to 50 (ES modules).
import Clutter from 'gi://Clutter';
import Gio from 'gi://Gio';
import GLib from 'gi://GLib';
import GObject from 'gi://GObject';
import St from 'gi://St';
import Gettext from 'gettext';

import * as Main from 'resource:///org/gnome/shell/ui/main.js';
import * as PopupMenu from 'resource:///org/gnome/shell/ui/popupMenu.js';
import * as QuickSettings from 'resource:///org/gnome/shell/ui/quickSettings.js';
import * as Config from 'resource:///org/gnome/shell/misc/config.js';
import {Extension} from 'resource:///org/gnome/shell/extensions/extension.js';

import * as Pacer from './ui.js';

export default class PacerExtension extends Extension {
    enable() {
        const modules = {
            Clutter, Gio, GLib, GObject, St, Gettext, Main, PopupMenu, QuickSettings, Config,
        };
        this._pacer = Pacer.enable(modules, this.metadata, this.dir);
    }

    disable() {
        this._pacer.destroy();
        this._pacer = null;
    }
}
