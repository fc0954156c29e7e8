#!/bin/sh
# check-layers.sh [ROOT]: fail, one line per offence, when a source file
# includes a header across an edge that tools/layers does not allow, or
# another folder's header that is not its public face (<folder>/<folder>.h;
# every lib/ header is public).  Run by `make check`; the build enforces the
# same edges through each folder's include path, this names the offence.
#
#   web/page_bug.c: includes tracker/bugzilla.h: web may not use tracker (tools/layers)
set -eu
root=${1:-.}
cd "$root"
layers=tools/layers
status=0

folders=$(sed -n 's/^\([a-z]*\):.*/\1/p' "$layers")
uses() { sed -n "s/^$1:[[:space:]]*//p" "$layers"; }
home_of() {	# the folder that holds header $1, if one does
	for f in $folders; do
		[ -f "$f/$1" ] && { echo "$f"; return; }
	done
}

for folder in $folders; do
	allowed=" $(uses "$folder") "
	for file in "$folder"/*.c "$folder"/*.h; do
		[ -f "$file" ] || continue
		for header in $(sed -n 's/^[[:space:]]*#[[:space:]]*include[[:space:]]*"\([^"]*\)".*/\1/p' "$file"); do
			[ -f "$folder/$header" ] && continue
			home=$(home_of "$header")
			if [ -z "$home" ] || [ "$home" = "$folder" ]; then
				continue
			fi
			case "$allowed" in
			*" $home "*) ;;
			*)	echo "$file: includes $home/$header: $folder may not use $home ($layers)"
				status=1
				continue ;;
			esac
			if [ "$home" != lib ] && [ "$header" != "$home.h" ]; then
				echo "$file: includes $home/$header: only $home/$home.h is public"
				status=1
			fi
		done
	done
done
exit $status
