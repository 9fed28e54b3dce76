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
