// SPDX-License-Identifier: GPL-3.0-or-later
// For Pacer's tests in GNOME Shell 45 and later: the probe of ../../legacy/ as an ES module.
// org.pacerapp.ShellProbe.Eval runs JavaScript inside the shell and answers its value as
// JSON, or the exception with its stack. (The shell's org.gnome.Shell.Eval needs unsafe mode,
// which only a looking-glass command or a debug build turns on.)
import Gio from 'gi://Gio';
// In scope for the code sent, as in the legacy probe (a module has no `imports.ui`).
import Shell from 'gi://Shell'; // eslint-disable-line no-unused-vars
// Clutter and GLib: the virtual pointer that clicks in a headless shell (GnomeShell::click_at).
import Clutter from 'gi://Clutter'; // eslint-disable-line no-unused-vars
import GLib from 'gi://GLib'; // eslint-disable-line no-unused-vars
import * as Main from 'resource:///org/gnome/shell/ui/main.js'; // eslint-disable-line no-unused-vars
import * as Config from 'resource:///org/gnome/shell/misc/config.js'; // eslint-disable-line no-unused-vars
import {Extension} from 'resource:///org/gnome/shell/extensions/extension.js';

const INTERFACE = `<node>
  <interface name="org.pacerapp.ShellProbe">
    <method name="Eval">
      <arg type="s" direction="in" name="code"/>
      <arg type="b" direction="out" name="ok"/>
      <arg type="s" direction="out" name="value"/>
    </method>
  </interface>
</node>`;

export default class Probe extends Extension {
    enable() {
        this._object = Gio.DBusExportedObject.wrapJSObject(INTERFACE, this);
        this._object.export(Gio.DBus.session, '/org/pacerapp/ShellProbe');
    }

    disable() {
        this._object.unexport();
        this._object = null;
    }

    Eval(code) {
        try {
            // Direct eval: the code sees Main, Config, Gio, GLib, Clutter, Shell and the shell's
            // globals (global).
            // eslint-disable-next-line no-eval
            const value = JSON.stringify(eval(code));
            return [true, value === undefined ? 'null' : value];
        } catch (error) {
            return [false, `${error}\n${error.stack}`];
        }
    }
}
