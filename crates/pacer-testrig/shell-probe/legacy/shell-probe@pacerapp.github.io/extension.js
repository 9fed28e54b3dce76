// SPDX-License-Identifier: GPL-3.0-or-later
// For Pacer's tests: org.pacerapp.ShellProbe.Eval runs JavaScript inside the shell and
// answers its value as JSON, or the exception with its stack.
/* exported init */
// In scope for the code sent, as in the probe for 45 and later (../../esm/).
const {Gio, Shell} = imports.gi; // eslint-disable-line no-unused-vars
const Main = imports.ui.main; // eslint-disable-line no-unused-vars
const Config = imports.misc.config; // eslint-disable-line no-unused-vars

const INTERFACE = `<node>
  <interface name="org.pacerapp.ShellProbe">
    <method name="Eval">
      <arg type="s" direction="in" name="code"/>
      <arg type="b" direction="out" name="ok"/>
      <arg type="s" direction="out" name="value"/>
    </method>
  </interface>
</node>`;

class Probe {
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
            // Direct eval: the code sees Main, Config, Gio, Shell and the shell's globals (imports,
            // global).
            // eslint-disable-next-line no-eval
            const value = JSON.stringify(eval(code));
            return [true, value === undefined ? 'null' : value];
        } catch (error) {
            return [false, `${error}\n${error.stack}`];
        }
    }
}

/**
 * @returns {Probe}
 */
function init() {
    return new Probe();
}
