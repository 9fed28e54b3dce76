// SPDX-License-Identifier: GPL-3.0-or-later
// The Shell widgets of Pacer's extension: its own Quick Settings toggle (shown only where
// GNOME shows no power-profile toggle), the panel icon's indicator, and the menu line with
// details; and the subtitle line GNOME Shell 43's toggles lack.
//
// Written as an ES module; the build (build.py) turns it into a legacy module for 43 and 44.

// GObject types are registered once per shell process: enabling again reuses them.
let classes = null;

/**
 * Whether the shell's toggles have `title` and `subtitle` (44 renamed `label` to `title` and
 * added `subtitle`).
 *
 * @param {object} shell the Shell's modules and `version`
 * @returns {boolean}
 */
export function hasSubtitles(shell) {
    return shell.version >= 44;
}

/**
 * Gives a 43 toggle a second line under its title, drawn as 44 draws a subtitle; undone by
 * `removeSubtitleLine`.
 *
 * @param {object} shell the Shell's modules
 * @param {object} toggle a QuickToggle of 43
 * @returns {object} the subtitle's St.Label (hidden while empty)
 */
export function addSubtitleLine(shell, toggle) {
    const {St, Clutter} = shell;
    const title = toggle._label;
    const index = toggle._box.get_children().indexOf(title);
    toggle._box.remove_child(title);
    const lines = new St.BoxLayout({
        vertical: true,
        x_expand: true,
        y_align: Clutter.ActorAlign.CENTER,
    });
    const subtitle = new St.Label({
        style_class: 'quick-toggle-label',
        style: 'font-size: smaller; font-weight: normal;',
        x_align: Clutter.ActorAlign.START,
        visible: false,
    });
    subtitle.clutter_text.ellipsize = title.clutter_text.ellipsize;
    lines.add_child(title);
    lines.add_child(subtitle);
    toggle._box.insert_child_at_index(lines, index);
    return subtitle;
}

/**
 * Puts a 43 toggle's title back where `addSubtitleLine` found it.
 *
 * @param {object} toggle the toggle
 * @param {object} subtitle what `addSubtitleLine` returned
 */
export function removeSubtitleLine(toggle, subtitle) {
    const lines = subtitle.get_parent();
    const index = toggle._box.get_children().indexOf(lines);
    lines.remove_child(toggle._label);
    toggle._box.insert_child_at_index(toggle._label, index);
    lines.destroy();
}

/**
 * Registers the toggle's, the indicator's and the detail line's types (once).
 *
 * @param {object} shell the Shell's modules and `version`
 * @returns {object} the types
 */
export function widgetClasses(shell) {
    if (classes === null)
        classes = defineClasses(shell);
    return classes;
}

/**
 * @param {object} shell the Shell's modules and `version`
 * @returns {object} the types
 */
function defineClasses(shell) {
    const {GObject, St, Clutter, QuickSettings, PopupMenu} = shell;
    const titled = hasSubtitles(shell);

    const PacerToggle = GObject.registerClass(
    class PacerToggle extends QuickSettings.QuickMenuToggle {
        _init() {
            super._init(titled ? {title: 'Pacer'} : {label: 'Pacer'});
            if (!titled)
                this._subtitleLabel = addSubtitleLine(shell, this);
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
    });

    const PacerIndicator = GObject.registerClass(
    class PacerIndicator extends QuickSettings.SystemIndicator {
        _init() {
            super._init();
            this.icon = this._addIndicator();
        }
    });

    // A line with a value at its end where given, its details below where given, an icon
    // before and a button after for an action where given: a core type with its frequency
    // and settings; a finding, with its Fix. The line stays one line, cut with an ellipsis
    // rather than wrapped (a finding's is a few words: its details are in Pacer's window);
    // the details wrap, never cut. Reactive only where `reactive` (its `activate` signal
    // then acts), as a finding opens Pacer's window.
    const DetailItem = GObject.registerClass(
    class DetailItem extends PopupMenu.PopupBaseMenuItem {
        _init({
            title, value = null, detail = null, iconName = null, action = null, reactive = false,
        }) {
            super._init({reactive, can_focus: reactive});
            if (iconName) {
                // Where GNOME's items have their icon, and their ornament: 43 keeps a place
                // for one in every item, 45 and later not unless it is set.
                this.setOrnament(PopupMenu.Ornament.HIDDEN);
                this.add_child(new St.Icon({style_class: 'popup-menu-icon', icon_name: iconName}));
            }
            const lines = new St.BoxLayout({
                vertical: true,
                x_expand: true,
                y_align: Clutter.ActorAlign.CENTER,
            });
            const line = new St.BoxLayout({x_expand: true});
            this.titleLabel = new St.Label({text: title, x_expand: true});
            this.titleLabel.clutter_text.line_wrap = false;
            this.titleLabel.clutter_text.ellipsize = 3; // Pango.EllipsizeMode.END
            line.add_child(this.titleLabel);
            this._value = null;
            if (value !== null) {
                this._value = new St.Label({text: value});
                line.add_child(this._value);
            }
            lines.add_child(line);
            this._detail = null;
            if (detail !== null) {
                this._detail = new St.Label({
                    text: detail,
                    style: 'font-size: smaller;',
                    visible: detail !== '',
                });
                this._detail.clutter_text.line_wrap = true;
                this._detail.clutter_text.ellipsize = 0; // Pango.EllipsizeMode.NONE
                lines.add_child(this._detail);
            }
            this.add_child(lines);
            this.label_actor = this.titleLabel;
            // Its own button: a click on it does the action, and not the item's (GNOME's
            // Background Apps items have their close button so). Narrower than the theme's
            // buttons, for the line's words.
            this.actionButton = null;
            if (action !== null) {
                this.actionButton = new St.Button({
                    label: action.label,
                    style_class: 'button',
                    style: 'padding: 3px 12px;',
                    can_focus: true,
                    y_align: Clutter.ActorAlign.CENTER,
                });
                this.actionButton.connect('clicked', () => action.activate());
                this.add_child(this.actionButton);
            }
        }

        /** @returns {string} the value at the line's end */
        get value() {
            return this._value.text;
        }

        setValue(value) {
            this._value.text = value;
        }
    });

    return {PacerToggle, PacerIndicator, DetailItem};
}

/**
 * The part of a toggle that draws its icon, title and subtitle: a menu toggle of 45 and later
 * holds a QuickToggle that does; 43's and 44's draw them themselves.
 *
 * @param {object} toggle a QuickToggle or QuickMenuToggle
 * @returns {object} what has `_icon` and the title's and subtitle's labels
 */
export function drawnPart(toggle) {
    return toggle._box.get_children().find(child => child._icon) ?? toggle;
}

/**
 * The labels a toggle shows its title and subtitle in (the subtitle's null where it has
 * none): what the tests read, as the user sees them.
 *
 * @param {object} toggle a QuickToggle
 * @param {?object} subtitle43 the line `addSubtitleLine` added, on 43
 * @returns {object[]} [title, subtitle]
 */
export function toggleLabels(toggle, subtitle43) {
    const drawn = drawnPart(toggle);
    if (subtitle43 !== undefined && subtitle43 !== null)
        return [drawn._label, subtitle43];
    return [drawn._title ?? drawn._label, drawn._subtitle ?? null];
}
