// SPDX-License-Identifier: GPL-3.0-or-later
// Pacer's Quick Settings toggle, its menu and its panel icon: a view of the State1 object
// the running Pacer exports on the session bus. It follows that object by its signals only
// (PropertiesChanged and its name's owner), and asks Pacer for every change.
//
// The Shell's modules come in as `shell` (see the two entry points, one per module system),
// so that this one source serves GNOME Shell 43 to 49. Written as an ES module; the build
// (build.py) turns it into a legacy module for 43 and 44.

import {viewOf, refusalLabel} from './state.js';

const OBJECT_PATH = '/io/github/pacerapp/Pacer';
const INTERFACE = 'io.github.pacerapp.Pacer.State1';
// The interface's description, copied beside this file by the build.
const INTERFACE_FILE = 'io.github.pacerapp.Pacer.State1.xml';
const PROPERTIES = ['Profile', 'Profiles', 'ProfileDaemon', 'Holds', 'DegradedReason',
    'CoreTypes', 'Frequencies', 'Findings', 'Measuring'];

// GObject types are registered once per shell process: enabling again reuses them.
let classes = null;

/**
 * Registers the toggle's and the indicator's types.
 *
 * @param {object} shell the Shell's modules
 * @returns {object} the types
 */
function defineClasses(shell) {
    const {GObject, St, Clutter, QuickSettings, PopupMenu} = shell;
    // 44 renamed the toggle's `label` to `title` and added `subtitle`.
    const titled = shell.version >= 44;

    const PacerToggle = GObject.registerClass(
    class PacerToggle extends QuickSettings.QuickMenuToggle {
        _init() {
            super._init(titled ? {title: 'Pacer'} : {label: 'Pacer'});
            if (!titled) {
                // 43 has no subtitle: the title gets one below it, as 44 draws it.
                this._box.remove_child(this._label);
                const lines = new St.BoxLayout({
                    vertical: true,
                    x_expand: true,
                    y_align: Clutter.ActorAlign.CENTER,
                });
                this._subtitleLabel = new St.Label({
                    style_class: 'quick-toggle-label',
                    style: 'font-size: smaller; font-weight: normal;',
                    x_align: Clutter.ActorAlign.START,
                });
                this._subtitleLabel.clutter_text.ellipsize = this._label.clutter_text.ellipsize;
                lines.add_child(this._label);
                lines.add_child(this._subtitleLabel);
                this._box.insert_child_at_index(lines, 1);
            }
        }

        setText(title, subtitle) {
            if (titled) {
                this.title = title;
                this.subtitle = subtitle;
            } else {
                this.label = title;
                this._subtitleLabel.text = subtitle;
                this._subtitleLabel.visible = subtitle !== '';
            }
        }

        get text() {
            return titled ? [this.title, this.subtitle || '']
                : [this.label, this._subtitleLabel.text];
        }
    });

    const PacerIndicator = GObject.registerClass(
    class PacerIndicator extends QuickSettings.SystemIndicator {
        _init() {
            super._init();
            this.icon = this._addIndicator();
        }
    });

    // A line with its details below where given (wrapped, not cut), an icon before and an
    // action's name after where given: a core type's settings, a finding with its Fix (its
    // cause, a paragraph, is the item's accessible description and in Pacer's window).
    const DetailItem = GObject.registerClass(
    class DetailItem extends PopupMenu.PopupBaseMenuItem {
        _init({title, detail = null, iconName = null, action = null}) {
            super._init({reactive: action !== null, can_focus: action !== null});
            if (iconName)
                this.add_child(new St.Icon({style_class: 'popup-menu-icon', icon_name: iconName}));
            const lines = new St.BoxLayout({vertical: true, x_expand: true});
            const texts = [[title, null], [detail, 'font-size: smaller;']]
                .filter(([text]) => text !== null);
            const labels = texts.map(([text, style]) => {
                const label = new St.Label({text, style, visible: text !== ''});
                label.clutter_text.line_wrap = true;
                label.clutter_text.ellipsize = 0; // Pango.EllipsizeMode.NONE
                lines.add_child(label);
                return label;
            });
            this._detail = labels[1] || null;
            this.add_child(lines);
            this.label_actor = lines.get_first_child();
            if (action !== null) {
                this.add_child(new St.Label({
                    text: action,
                    style_class: 'button',
                    y_align: Clutter.ActorAlign.CENTER,
                }));
            }
        }

        setDetail(detail) {
            this._detail.set({text: detail, visible: detail !== ''});
        }
    });

    return {PacerToggle, PacerIndicator, DetailItem};
}

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
        if (classes === null)
            classes = defineClasses(shell);
        this._shell = shell;
        this._busName = extension.busName;
        this._dir = extension.dir;
        this._ = extension._;
        this._view = viewOf(null, this._);
        this._lastBoost = 'performance';

        this._indicator = new classes.PacerIndicator();
        this.toggle = new classes.PacerToggle();
        this._indicator.quickSettingsItems.push(this.toggle);
        this.toggle.connect('clicked', () => this._toggled());
        this._openChanged = this.toggle.menu.connect('open-state-changed',
            (menu, open) => this._watchFrequencies(open));
        this._addToQuickSettings();

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

    destroy() {
        const {Gio} = this._shell;
        Gio.bus_unwatch_name(this._watch);
        Gio.DBus.session.signal_unsubscribe(this._changes);
        this._properties = null;
        this.toggle.menu.disconnect(this._openChanged);
        this._indicator.quickSettingsItems.forEach(item => item.destroy());
        this._indicator.destroy();
        this._indicator = null;
        this.toggle = null;
    }

    /** @returns {object} what is shown (for the tests) */
    get view() {
        return this._view;
    }

    /** @returns {object} the panel icon */
    get icon() {
        return this._indicator.icon;
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
        for (const name of PROPERTIES) {
            const value = this._properties.get(name);
            if (value === undefined)
                return null;
            state[name] = value.deepUnpack();
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
                if (this._owner !== owner || !this.toggle)
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
        if (!this.toggle)
            return;
        const view = viewOf(this._state(), this._);
        this._view = view;
        const {Gio} = this._shell;
        const gicon = Gio.FileIcon.new(this._dir.get_child(`icons/${view.iconName}.svg`));
        this.toggle.setText(view.title, view.subtitle);
        this.toggle.gicon = gicon;
        this.toggle.checked = view.checked;
        this.toggle.menu.setHeader(gicon, this._('Pacer'), this._menuSubtitle(view));
        this._indicator.icon.gicon = gicon;
        this._indicator.icon.visible = view.running;
        this._fillMenu(view);
    }

    _menuSubtitle(view) {
        if (!view.running)
            return this._('Pacer is not running');
        return view.subtitle;
    }

    // The menu is made anew when what it lists changes; the frequencies, which change every
    // second while it is open, are written into its items (a menu made anew would lose the
    // keyboard's place in it).
    _fillMenu(view) {
        const layout = JSON.stringify({
            ...view,
            coreTypes: view.coreTypes.map(coreType => ({...coreType, frequency: ''})),
        });
        if (layout === this._menuLayout) {
            view.coreTypes.forEach((coreType, index) =>
                this._coreTypeItems[index].setDetail(coreTypeDetail(coreType)));
            return;
        }
        this._menuLayout = layout;
        this._coreTypeItems = [];
        const {PopupMenu} = this._shell;
        const _ = this._;
        const menu = this.toggle.menu;
        menu.removeAll();
        if (!view.running) {
            this._addItem(_('Start Pacer'), () => this._start());
            return;
        }
        for (const {profile, label, active} of view.profiles) {
            const item = this._addItem(label, () => this._call('SetProfile', [profile]));
            item.setOrnament(active ? PopupMenu.Ornament.CHECK : PopupMenu.Ornament.NONE);
        }
        menu.addMenuItem(new PopupMenu.PopupSeparatorMenuItem());
        for (const coreType of view.coreTypes) {
            const item = new classes.DetailItem({
                title: coreType.label,
                detail: coreTypeDetail(coreType),
            });
            this._coreTypeItems.push(item);
            menu.addMenuItem(item);
        }
        for (const note of view.notes)
            menu.addMenuItem(new PopupMenu.PopupMenuItem(note, {reactive: false}));
        for (const finding of view.findings) {
            const item = new classes.DetailItem({
                title: finding.summary,
                iconName: finding.warning ? 'dialog-warning-symbolic' : 'dialog-information-symbolic',
                action: finding.fixable ? _('Fix') : null,
            });
            item.finding = finding;
            // None where no accessibility bus runs.
            const accessible = item.get_accessible();
            if (accessible)
                accessible.accessible_description = finding.cause;
            item.connect('activate', () => this._call('Fix', [finding.key]));
            menu.addMenuItem(item);
        }
        menu.addMenuItem(new PopupMenu.PopupSeparatorMenuItem());
        const measure = this._addItem(view.measuring ? _('Measuring…') : _('Measure Ramp-Up'),
            () => this._call('MeasureRamp', []));
        measure.setSensitive(!view.measuring);
        this._addItem(_('Open Pacer'), () => this._call('ShowWindow', ['']));
    }

    _addItem(label, activate) {
        const item = new this._shell.PopupMenu.PopupMenuItem(label);
        item.connect('activate', activate);
        this.toggle.menu.addMenuItem(item);
        return item;
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
 * What a core type's menu item says below its name.
 *
 * @param {object} coreType the core type's view
 * @returns {string}
 */
function coreTypeDetail(coreType) {
    return [coreType.epp, coreType.governor, coreType.frequency]
        .filter(part => part !== '').join(' · ');
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
