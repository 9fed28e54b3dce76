// SPDX-License-Identifier: GPL-3.0-or-later
// Pacer in Quick Settings: one power toggle, and a panel icon. Where GNOME shows its own
// power-profile toggle (a profile daemon is on the bus), Pacer extends it (gnomeToggle.js);
// where it shows none, Pacer's own toggle stands in its place. Both show a view of the State1
// object the running Pacer exports on the session bus. The extension follows that object by
// its signals only (PropertiesChanged and its name's owner), and asks Pacer for every change.
//
// The Shell's modules come in as `shell` (see the two entry points, one per module system),
// so that this one source serves GNOME Shell 43 to 50. Written as an ES module; the build
// (build.py) turns it into a legacy module for 43 and 44.

import {viewOf, refusalLabel} from './state.js';
import {GnomePowerToggle} from './gnomeToggle.js';
import {PacerMenuSection} from './menu.js';
import {widgetClasses, toggleLabels, drawnPart} from './widgets.js';

const OBJECT_PATH = '/io/github/pacerapp/Pacer';
const INTERFACE = 'io.github.pacerapp.Pacer.State1';
// The interface's description, copied beside this file by the build.
const INTERFACE_FILE = 'io.github.pacerapp.Pacer.State1.xml';
const PROPERTIES = ['Profile', 'Profiles', 'ProfileDaemon', 'Holds', 'DegradedReason',
    'CoreTypes', 'Frequencies', 'Findings', 'Measuring'];
// Added to State1 later: an older Pacer, a Flatpak say, lacks them, and the view does without.
const LATER_PROPERTIES = ['CoreTypeLabels', 'Limits'];

/**
 * The extension while enabled: the proxy of Pacer's state, the toggle and the panel icon.
 */
class PacerQuickSettings {
    /**
     * @param {object} shell the Shell's modules: GObject, Gio, GLib, St, Clutter, Main,
     *   QuickSettings, PopupMenu, and `version` (the shell's major version)
     * @param {object} extension `busName` (Pacer's application id), `dir` (a Gio.File of the
     *   extension's folder) and `_` (gettext in the extension's domain)
     */
    constructor(shell, extension) {
        const classes = widgetClasses(shell);
        this._shell = shell;
        this._busName = extension.busName;
        this._dir = extension.dir;
        this._ = extension._;
        this._view = viewOf(null, this._);
        this._lastBoost = 'performance';

        this._indicator = new classes.PacerIndicator();
        this._ownToggle = new classes.PacerToggle();
        this._indicator.quickSettingsItems.push(this._ownToggle);
        this._ownToggle.connect('clicked', () => this._toggled());
        this._addToQuickSettings();
        this._menus = [];
        this._addMenu(this._ownToggle, 0, true);
        // GNOME's toggle, once the shell has made it: 45 and later make Quick Settings'
        // indicators after importing some of their modules, maybe after extensions start.
        this._gnomeToggle = null;
        this._indicatorsAdded = null;
        if (!this._adoptGnomeToggle()) {
            const indicators = shell.Main.panel.statusArea.quickSettings._indicators;
            this._indicatorsAdded = [indicators, indicators.connect('child-added', () => {
                if (this._adoptGnomeToggle()) {
                    this._stopWaitingForGnome();
                    this._sync();
                }
            })];
        }

        const {Gio} = shell;
        const xml = new TextDecoder().decode(
            this._dir.get_child(INTERFACE_FILE).load_contents(null)[1]);
        this._interface = Gio.DBusNodeInfo.new_for_xml(xml).lookup_interface(INTERFACE);
        // Pacer's properties from its current owner, null while none or not yet read.
        this._owner = null;
        this._properties = null;
        // Not started by the shell's login: the toggle starts Pacer when asked.
        this._watch = Gio.bus_watch_name_on_connection(Gio.DBus.session, this._busName,
            Gio.BusNameWatcherFlags.NONE, (connection, name, owner) => this._appeared(owner),
            () => this._vanished());
        // Any sender's, checked against the owner in _changed (the subscription then does
        // not depend on when the bus told this connection who owns the name).
        this._changes = Gio.DBus.session.signal_subscribe(null,
            'org.freedesktop.DBus.Properties', 'PropertiesChanged', OBJECT_PATH, INTERFACE,
            Gio.DBusSignalFlags.NONE,
            (connection, sender, path, iface, signal, parameters) =>
                this._changed(sender, parameters));
        this._sync();
    }

    /**
     * Extends GNOME's power toggle where the shell has made it.
     *
     * @returns {boolean} whether it did
     */
    _adoptGnomeToggle() {
        const gnome = GnomePowerToggle.find(this._shell);
        if (!gnome)
            return false;
        this._gnomeToggle = new GnomePowerToggle(this._shell, gnome, () => this._sync());
        // Pacer's part follows GNOME's profiles, before its Power Settings where it has one.
        this._addMenu(gnome, 1, false);
        return true;
    }

    _stopWaitingForGnome() {
        if (this._indicatorsAdded === null)
            return;
        const [indicators, handler] = this._indicatorsAdded;
        indicators.disconnect(handler);
        this._indicatorsAdded = null;
    }

    _addMenu(toggle, position, withProfiles) {
        const section = new PacerMenuSection(this._shell, toggle.menu, position, {
            withProfiles,
            _: this._,
            call: (method, args) => this._call(method, args),
            start: () => this._start(),
        });
        const opened = toggle.menu.connect('open-state-changed',
            (menu, open) => this._watchFrequencies(open));
        this._menus.push({toggle, section, opened});
    }

    destroy() {
        this._stopWaitingForGnome();
        const {Gio} = this._shell;
        Gio.bus_unwatch_name(this._watch);
        Gio.DBus.session.signal_unsubscribe(this._changes);
        this._properties = null;
        for (const {toggle, section, opened} of this._menus) {
            toggle.menu.disconnect(opened);
            section.destroy();
        }
        this._menus = [];
        if (this._gnomeToggle)
            this._gnomeToggle.destroy();
        this._gnomeToggle = null;
        this._indicator.quickSettingsItems.forEach(item => item.destroy());
        this._indicator.destroy();
        this._indicator = null;
        this._ownToggle = null;
    }

    /** @returns {object} what is shown (for the tests) */
    get view() {
        return this._view;
    }

    /** @returns {object} the panel icon */
    get icon() {
        return this._indicator.icon;
    }

    /** @returns {boolean} whether GNOME's own toggle is the one shown, extended */
    get extendsGnome() {
        return this._gnomeToggle !== null && this._gnomeToggle.visible;
    }

    /** @returns {object} the power toggle Quick Settings shows: GNOME's or Pacer's own */
    get toggle() {
        return this.extendsGnome ? this._gnomeToggle.toggle : this._ownToggle;
    }

    /** @returns {object} the St.Icon the shown toggle draws its icon in */
    get toggleIcon() {
        return drawnPart(this.toggle)._icon;
    }

    /**
     * The shown toggle's title and subtitle as its labels show them, and whether either is
     * cut (for the tests: what the user reads).
     *
     * @returns {object} `{title, subtitle, cut}`
     */
    get toggleText() {
        const labels = this.extendsGnome ? this._gnomeToggle.labels
            : toggleLabels(this._ownToggle, this._ownToggle._subtitleLabel);
        const [title, subtitle] = labels.map(label =>
            label && label.visible ? label.text : '');
        const cut = labels.some(label =>
            label && label.visible && label.clutter_text.get_layout().is_ellipsized());
        return {title, subtitle, cut};
    }

    _addToQuickSettings() {
        const quickSettings = this._shell.Main.panel.statusArea.quickSettings;
        if (quickSettings.addExternalIndicator) {
            quickSettings.addExternalIndicator(this._indicator);
        } else {
            // 43 has no public way to add an indicator (44 added addExternalIndicator).
            quickSettings._indicators.insert_child_at_index(this._indicator, 0);
            quickSettings._addItems(this._indicator.quickSettingsItems);
        }
    }

    /** @returns {?object} State1's properties, null while Pacer does not run */
    _state() {
        if (this._properties === null)
            return null;
        const state = {};
        for (const name of [...PROPERTIES, ...LATER_PROPERTIES]) {
            const value = this._properties.get(name);
            if (value !== undefined)
                state[name] = value.deepUnpack();
            else if (PROPERTIES.includes(name))
                return null;
        }
        return state;
    }

    _appeared(owner) {
        this._owner = owner;
        this._properties = null;
        this._sync();
        const {Gio, GLib} = this._shell;
        Gio.DBus.session.call(owner, OBJECT_PATH, 'org.freedesktop.DBus.Properties', 'GetAll',
            new GLib.Variant('(s)', [INTERFACE]), null, Gio.DBusCallFlags.NO_AUTO_START, -1,
            null, (connection, result) => {
                let properties;
                try {
                    properties = connection.call_finish(result).get_child_value(0);
                } catch (error) {
                    // Gone again meanwhile: the name's watch says so.
                    return;
                }
                if (this._owner !== owner || !this._indicator)
                    return;
                this._properties = new Map();
                this._apply(properties);
            });
    }

    _vanished() {
        this._owner = null;
        this._properties = null;
        this._sync();
    }

    // A change announced before the reading above was answered is in that answer (the
    // owner sends both in order): it is then ignored.
    _changed(sender, parameters) {
        if (sender !== this._owner || this._properties === null)
            return;
        this._apply(parameters.get_child_value(1));
    }

    _apply(properties) {
        for (let index = 0; index < properties.n_children(); index++) {
            const entry = properties.get_child_value(index);
            this._properties.set(entry.get_child_value(0).unpack(),
                entry.get_child_value(1).get_variant());
        }
        this._sync();
    }

    _sync() {
        if (!this._indicator)
            return;
        const view = viewOf(this._state(), this._);
        this._view = view;
        const {Gio} = this._shell;
        const gicon = Gio.FileIcon.new(this._dir.get_child(`icons/${view.iconName}.svg`));
        const own = this._ownToggle;
        own.setText(view.title, view.subtitle);
        own.gicon = gicon;
        own.checked = view.checked;
        own.menu.setHeader(gicon, this._('Pacer'),
            view.running ? view.subtitle : this._('Pacer is not running'));
        if (this._gnomeToggle)
            this._gnomeToggle.show(view, gicon);
        own.visible = !this.extendsGnome;
        this._indicator.icon.gicon = gicon;
        this._indicator.icon.visible = view.running;
        for (const {section} of this._menus)
            section.show(view);
    }

    _toggled() {
        const view = this._view;
        if (!view.running) {
            this._start();
            return;
        }
        const offered = view.profiles.map(({profile}) => profile);
        const active = view.profiles.find(profile => profile.active);
        if (active && active.profile !== 'balanced')
            this._lastBoost = active.profile;
        const wanted = view.checked ? 'balanced' : this._lastBoost;
        if (offered.includes(wanted))
            this._call('SetProfile', [wanted]);
        else
            this._sync();
    }

    // Starts Pacer in the background through D-Bus activation.
    _start() {
        const {Gio, GLib} = this._shell;
        Gio.DBus.session.call('org.freedesktop.DBus', '/org/freedesktop/DBus',
            'org.freedesktop.DBus', 'StartServiceByName',
            new GLib.Variant('(su)', [this._busName, 0]), null, Gio.DBusCallFlags.NONE, -1,
            null, (connection, result) => {
                try {
                    connection.call_finish(result);
                } catch (error) {
                    this._refused(error);
                }
                this._sync();
            });
    }

    _watchFrequencies(watching) {
        if (this._view.running)
            this._call('WatchFrequencies', [watching]);
    }

    // Calls one of State1's methods; a call that is not answered says why.
    _call(method, args) {
        const {Gio, GLib} = this._shell;
        const signature = this._interface.lookup_method(method).in_args
            .map(arg => arg.signature).join('');
        // On the bus name, so that a call may start Pacer.
        Gio.DBus.session.call(this._busName, OBJECT_PATH, INTERFACE, method,
            new GLib.Variant(`(${signature})`, args), null, Gio.DBusCallFlags.NONE, -1, null,
            (connection, result) => {
                try {
                    connection.call_finish(result);
                } catch (error) {
                    this._refused(error);
                }
            });
    }

    _refused(error) {
        const {Gio, Main} = this._shell;
        const name = Gio.DBusError.get_remote_error(error) || '';
        console.warn(`Pacer: ${error.message}`);
        Main.notifyError(this._('Pacer could not do that'), refusalLabel(name, this._));
    }
}

/**
 * The extension enabled, from what each entry point imports its own way.
 *
 * @param {object} modules the Shell's modules: Clutter, Gio, GLib, GObject, St, Gettext,
 *   Main, PopupMenu, QuickSettings and Config
 * @param {object} metadata the extension's metadata.json
 * @param {object} dir a Gio.File of the extension's folder
 * @returns {PacerQuickSettings} what disabling destroys
 */
export function enable(modules, metadata, dir) {
    const shell = {...modules, version: parseInt(modules.Config.PACKAGE_VERSION, 10)};
    return new PacerQuickSettings(shell, {
        busName: metadata['bus-name'],
        dir,
        _: translations(modules.Gettext, metadata, dir),
    });
}

/**
 * gettext in the extension's domain: from the extension's own locale/ (the zip for
 * extensions.gnome.org), else from where Pacer's translations are installed.
 *
 * @param {object} Gettext GJS's gettext module
 * @param {object} metadata the extension's metadata.json
 * @param {object} dir a Gio.File of the extension's folder
 * @returns {Function} gettext
 */
function translations(Gettext, metadata, dir) {
    const domain = metadata['gettext-domain'];
    const own = dir.get_child('locale');
    const localedir = own.query_exists(null) ? own.get_path() : metadata.localedir;
    if (localedir)
        Gettext.bindtextdomain(domain, localedir);
    return Gettext.domain(domain).gettext;
}
