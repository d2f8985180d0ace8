"""Vocabulary of the bundled synthetic demo domains: product types, attribute dimensions,
brands. Pure data; ``synthetic.py`` turns it into Amazon Reviews'23-format files.

A product type line reads ``name | subcategory | dimension, dimension``.
"""

from __future__ import annotations

ATTRIBUTES: dict[str, tuple[str, ...]] = {
    "string material": (
        "phosphor bronze",
        "80/20 bronze",
        "nickel-plated steel",
        "pure nickel",
        "stainless steel",
        "coated nylon",
    ),
    "gauge": ("extra light", "light", "medium", "heavy"),
    "pick thickness": ("thin 0.46 mm", "medium 0.73 mm", "heavy 1.0 mm", "extra heavy 1.5 mm"),
    "body material": (
        "aluminum",
        "zinc alloy",
        "ABS plastic",
        "carbon fiber",
        "steel",
        "solid wood",
    ),
    "fit": ("6-string acoustic", "electric guitar", "classical guitar", "bass guitar", "ukulele"),
    "display": ("color LCD", "LED needle", "backlit LCD", "strobe"),
    "power": ("9V battery", "USB-C rechargeable", "AA batteries", "9V adapter", "CR2032 coin cell"),
    "strap material": ("leather", "cotton", "nylon webbing", "suede", "polypropylene"),
    "color": ("black", "white", "red", "blue", "natural", "sunburst", "olive green", "gray"),
    "cable length": ("3 ft", "6 ft", "10 ft", "15 ft", "20 ft"),
    "connector": (
        "straight to straight 1/4 inch",
        "straight to right-angle 1/4 inch",
        "XLR to XLR",
        "XLR to 1/4 inch",
        "3.5 mm to 1/4 inch",
    ),
    "tone": (
        "warm vintage",
        "transparent",
        "high-gain",
        "ambient shimmer",
        "tape-style",
        "tight modern",
    ),
    "wattage": ("10 watt", "20 watt", "30 watt", "50 watt", "100 watt"),
    "speaker size": ("8 inch", "10 inch", "12 inch", "15 inch"),
    "impedance": ("4 ohm", "8 ohm", "16 ohm"),
    "connectivity": ("wired 3.5 mm", "USB", "Bluetooth", "2.4 GHz wireless", "XLR"),
    "polar pattern": ("cardioid", "supercardioid", "omnidirectional", "figure-8"),
    "stand material": ("steel", "aluminum", "wood", "folding steel"),
    "key count": ("25 keys", "37 keys", "49 keys", "61 keys", "88 keys"),
    "skill level": ("beginner", "intermediate", "professional"),
    "stick size": ("7A", "5A", "5B", "2B"),
    "tip": ("wood tip", "nylon tip"),
    "wood": ("birch", "beech", "mahogany", "maple", "walnut", "rosewood"),
    "instrument size": ("soprano", "concert", "tenor", "baritone"),
    "case material": ("molded ABS", "plywood with tolex", "padded nylon", "canvas", "EVA foam"),
    "grade": ("light", "dark", "amber", "all-weather"),
    "harmonica key": ("key of C", "key of G", "key of A", "key of D"),
    "platform": ("PlayStation 5", "Xbox Series X", "Nintendo Switch", "PC", "PlayStation 4"),
    "dpi": ("8,000 DPI", "16,000 DPI", "26,000 DPI", "32,000 DPI"),
    "switch type": (
        "linear red switches",
        "tactile brown switches",
        "clicky blue switches",
        "optical switches",
    ),
    "layout": ("full-size", "tenkeyless", "75 percent", "60 percent"),
    "pad size": ("medium", "large", "extended XL", "desk mat"),
    "surface": ("cloth", "hard polymer", "glass", "hybrid weave"),
    "ports": ("dual charging", "quad charging", "USB-C passthrough"),
    "carry material": ("hard shell EVA", "soft neoprene", "nylon"),
    "screen material": ("tempered glass", "PET film", "matte anti-glare film"),
    "capacity": ("128 GB", "256 GB", "512 GB", "1 TB", "2 TB"),
    "esrb rating": ("rated E for Everyone", "rated E10+", "rated T for Teen", "rated M for Mature"),
    "play mode": ("single-player", "online multiplayer", "local co-op", "split-screen"),
    "resolution": ("1080p60", "1440p", "4K30", "4K60 passthrough"),
    "noise level": ("whisper quiet", "standard", "turbo"),
    "storage": ("32 GB", "64 GB", "128 GB", "microSD expandable"),
    "mat thickness": ("1/8 inch", "1/4 inch", "1/2 inch", "2/3 inch"),
    "mat material": ("TPE", "natural rubber", "PVC", "cork", "NBR foam"),
    "resistance": ("light", "medium", "heavy", "extra heavy", "set of five levels"),
    "weight range": ("5 to 25 lb", "5 to 52.5 lb", "10 to 90 lb"),
    "kettlebell weight": ("10 lb", "15 lb", "20 lb", "25 lb", "35 lb", "45 lb"),
    "density": ("soft", "medium", "firm", "extra firm"),
    "roller length": ("12 inch", "18 inch", "24 inch", "36 inch"),
    "rope material": ("PVC cable", "steel cable", "beaded", "cotton"),
    "apparel size": ("small", "medium", "large", "X-large"),
    "compression": ("15-20 mmHg", "20-30 mmHg", "30-40 mmHg"),
    "pack capacity": ("20 L", "35 L", "50 L", "65 L"),
    "fabric": ("ripstop nylon", "polyester", "Cordura", "recycled polyester"),
    "pole material": ("aluminum", "carbon fiber"),
    "locking": ("flip lock", "twist lock", "push-button fold"),
    "sleeps": ("1-person", "2-person", "4-person", "6-person"),
    "season": ("3-season", "4-season", "summer"),
    "temperature rating": ("20 F", "30 F", "40 F", "50 F"),
    "fill": ("synthetic fill", "650-fill down", "800-fill down"),
    "fuel": ("isobutane canister", "propane", "wood burning", "multi-fuel"),
    "brightness": ("300 lumens", "500 lumens", "800 lumens", "1200 lumens"),
    "bottle capacity": ("18 oz", "24 oz", "32 oz", "40 oz", "64 oz"),
    "bottle material": (
        "insulated stainless steel",
        "BPA-free Tritan",
        "glass",
        "collapsible silicone",
    ),
    "padding": ("gel padded", "foam padded", "minimal padding"),
    "lock type": ("U-lock", "folding lock", "chain lock", "cable lock"),
    "security level": ("level 5 of 10", "level 7 of 10", "level 9 of 10"),
    "ventilation": ("14 vents", "18 vents", "22 vents"),
    "rod length": ("6 ft", "6 ft 6 in", "7 ft", "9 ft"),
    "action": ("fast action", "moderate action", "extra fast action"),
    "reel size": ("1000 size", "2500 size", "3000 size", "4000 size"),
    "gear ratio": ("5.2:1", "6.2:1", "7.1:1"),
    "ball size": ("size 3", "size 4", "size 5"),
    "ball material": ("synthetic leather", "composite leather", "rubber"),
    "racket weight": ("255 g", "285 g", "300 g", "315 g"),
    "grip size": ("4 inch", "4 1/4 inch", "4 3/8 inch", "4 1/2 inch"),
    "paddle core": ("polymer honeycomb", "nomex honeycomb", "aluminum core"),
    "lens": ("anti-fog clear", "mirrored", "polarized", "tinted"),
    "ball compression": ("low compression", "mid compression", "high compression"),
    "mounting": ("doorway", "wall mounted", "ceiling mounted", "free standing"),
    "weight capacity": ("225 lb", "300 lb", "400 lb"),
    "magnification": ("8x42", "10x42", "10x50", "12x50"),
}

TYPES = {
    "Musical_Instruments": """\
acoustic guitar strings | Strings | string material, gauge
electric guitar strings | Strings | string material, gauge
bass guitar strings | Strings | string material, gauge
guitar picks | Guitar Accessories | pick thickness, color
guitar capo | Guitar Accessories | body material, fit
clip-on tuner | Tuners | display, power
pedal tuner | Tuners | display, power
guitar strap | Guitar Accessories | strap material, color
instrument cable | Cables | cable length, connector
microphone cable | Cables | cable length, connector
overdrive pedal | Effects Pedals | tone, power
delay pedal | Effects Pedals | tone, power
reverb pedal | Effects Pedals | tone, power
distortion pedal | Effects Pedals | tone, power
guitar amplifier | Amplifiers | wattage, speaker size
bass amplifier | Amplifiers | wattage, speaker size
guitar speaker | Amplifier Parts | speaker size, impedance
studio headphones | Studio Audio | connectivity, color
condenser microphone | Microphones | connectivity, polar pattern
dynamic microphone | Microphones | connectivity, polar pattern
microphone stand | Stands | stand material, color
guitar stand | Stands | stand material, fit
digital piano | Keyboards | key count, skill level
MIDI keyboard controller | Keyboards | key count, connectivity
drumsticks | Drums | stick size, tip
practice pad | Drums | wood, skill level
cajon | Percussion | wood, skill level
ukulele | Ukuleles | instrument size, wood
hard guitar case | Cases | case material, fit
guitar gig bag | Cases | case material, fit
violin rosin | Orchestral Accessories | grade, skill level
metronome | Instrument Accessories | display, power
harmonica | Wind Instruments | harmonica key, skill level
""",
    "Video_Games": """\
wireless controller | Controllers | platform, color
wired controller | Controllers | platform, color
racing wheel | Controllers | platform, skill level
arcade fight stick | Controllers | platform, switch type
gaming headset | Headsets | platform, connectivity
gaming mouse | PC Gaming Accessories | connectivity, dpi
mechanical gaming keyboard | PC Gaming Accessories | switch type, layout
gaming mouse pad | PC Gaming Accessories | pad size, surface
controller charging dock | Console Accessories | platform, ports
console carrying case | Console Accessories | platform, carry material
screen protector | Console Accessories | platform, screen material
thumb grips | Console Accessories | platform, color
memory card | Storage | capacity, platform
external game drive | Storage | capacity, connectivity
role-playing game | Games | platform, esrb rating
open-world adventure game | Games | platform, esrb rating
racing game | Games | platform, play mode
sports game | Games | platform, play mode
puzzle game | Games | platform, esrb rating
platformer game | Games | platform, play mode
first-person shooter game | Games | platform, play mode
strategy game | Games | platform, play mode
fighting game | Games | platform, play mode
party game | Games | platform, play mode
survival horror game | Games | platform, esrb rating
farming simulation game | Games | platform, play mode
VR headset strap | Virtual Reality | platform, color
gaming chair | Gaming Furniture | color, weight capacity
capture card | Streaming | connectivity, resolution
streaming webcam | Streaming | resolution, connectivity
console cooling fan | Console Accessories | platform, noise level
retro handheld console | Consoles | storage, color
""",
    "Sports_and_Outdoors": """\
yoga mat | Yoga | mat thickness, mat material
resistance bands | Strength Training | resistance, color
adjustable dumbbells | Strength Training | weight range, color
kettlebell | Strength Training | kettlebell weight, color
foam roller | Recovery | density, roller length
jump rope | Cardio Training | rope material, color
running shorts | Athletic Clothing | apparel size, color
compression socks | Athletic Clothing | apparel size, compression
hiking backpack | Hiking | pack capacity, fabric
trekking poles | Hiking | pole material, locking
camping tent | Camping | sleeps, season
sleeping bag | Camping | temperature rating, fill
camping stove | Camping | fuel, color
headlamp | Camping | brightness, power
insulated water bottle | Hydration | bottle capacity, bottle material
hydration pack | Hydration | pack capacity, color
cycling gloves | Cycling | apparel size, padding
bike light | Cycling | brightness, power
bike lock | Cycling | lock type, security level
bike helmet | Cycling | apparel size, ventilation
spinning fishing rod | Fishing | rod length, action
spinning reel | Fishing | reel size, gear ratio
soccer ball | Team Sports | ball size, ball material
basketball | Team Sports | ball size, ball material
tennis racket | Racket Sports | racket weight, grip size
pickleball paddle | Racket Sports | paddle core, color
swim goggles | Swimming | lens, color
golf balls | Golf | ball compression, color
pull-up bar | Strength Training | mounting, weight capacity
camping chair | Camping | weight capacity, color
binoculars | Optics | magnification, color
""",
}

MAIN_CATEGORY = {
    "Musical_Instruments": "Musical Instruments",
    "Video_Games": "Video Games",
    "Sports_and_Outdoors": "Sports & Outdoors",
}

BRANDS = {
    "Musical_Instruments": (
        "Ardenwood",
        "Bellcrest",
        "Corvane",
        "Dunmore",
        "Elkhart Audio",
        "Fairtone",
        "Galloway",
        "Harlan & Ives",
        "Ionic Sound",
        "Juniper",
        "Kestrel",
        "Lumen Strings",
        "Marlow",
        "Norcross",
        "Oakridge",
    ),
    "Video_Games": (
        "Arcwave",
        "Bitforge",
        "Cobalt Labs",
        "Driftpoint",
        "Ember Studios",
        "Fluxion",
        "Glyph Games",
        "Hexbyte",
        "Ironpixel",
        "Jolt",
        "Kinetik",
        "Lunar Forge",
        "Maelstrom",
        "Nimbus Play",
        "Orbital",
    ),
    "Sports_and_Outdoors": (
        "Alpine Trail",
        "Boulderline",
        "Cascade Gear",
        "Drumlin",
        "Everpeak",
        "Fieldcraft",
        "Granite Run",
        "Highmark",
        "Ironbark",
        "Juniper Ridge",
        "Kodiak Works",
        "Lakeshore",
        "Meridian",
        "Northwind",
        "Outpost",
    ),
}

TIERS = (
    "Pro",
    "Classic",
    "Essential",
    "Studio",
    "Compact",
    "Deluxe",
    "Elite",
    "Signature",
    "Sport",
    "Travel",
    "Prime",
    "Select",
)

SELLING_WORDS = (
    "Upgraded",
    "Professional",
    "Premium",
    "Heavy Duty",
    "Lightweight",
    "Portable",
    "2024 New",
    "Original",
)
PACKS = ("Pack of {n}", "{n} Count", "Set of {n}", "{n}-Pack")

USES = {
    "Musical_Instruments": (
        "home practice",
        "live gigs",
        "studio recording",
        "lessons and learning",
        "jamming with friends",
    ),
    "Video_Games": (
        "long gaming sessions",
        "competitive play",
        "couch co-op nights",
        "streaming",
        "gaming on the go",
    ),
    "Sports_and_Outdoors": (
        "daily workouts",
        "weekend hikes",
        "camping trips",
        "training sessions",
        "commuting",
    ),
}

# The first word of an item's kind ("shimmer" in "Shimmer Pedal"): real catalogs name
# thousands of kinds, most of them once, so each item's kind pairs its type's noun with a
# modifier drawn (heavy-tailed) from its domain's list. Written as text, one word per gap.
KIND_MODIFIERS = {
    "Musical_Instruments": """
        acoustic electric classical jazz blues vintage studio stage travel compact stereo
        analog digital wireless tube boutique mini fuzz chorus phaser flanger looper octave
        tremolo vibrato wah violin cello banjo mandolin piano drum keyboard vocal podcast
        karaoke orchestral marching kids beginner baritone tenor soprano alto bamboo maple
        walnut rosewood mahogany nylon steel bronze brass copper silver carbon leather suede
        hemp cotton vegan retro modern hybrid dual triple multi mono passive active boost
        clean shimmer spring plate hall echo tape ambient lofi harmonic resonator bluegrass
        country metal rock gospel folk flamenco gypsy celtic mariachi reggae funk soul
        worship concert rehearsal busking campfire parlor dreadnought jumbo archtop
        hollowbody semi solid slim heavy light premium artisan handmade
    """,
    "Video_Games": """
        wireless bluetooth arcade retro pro elite mini compact classic modular ergonomic
        ambidextrous lefty silent clicky tactile linear hotswap rgb stealth matte glossy
        transparent neon pastel camo carbon aluminum bamboo leather fabric mesh foam memory
        cooling vented portable travel desktop handheld docked tabletop couch streamer
        creator esports tournament casual family kids party retro indie cozy horror fantasy
        scifi cyberpunk steampunk medieval pirate space ocean jungle desert arctic western
        noir anime pixel voxel roguelike metroidvania sandbox survival stealth tactical
        racing flight rhythm dance fitness puzzle trivia card board pinball arcade tycoon
        city farm zoo pet cooking fishing hunting golf tennis soccer hockey baseball
        basketball wrestling boxing skate snowboard surf climbing hiking sailing
    """,
    "Sports_and_Outdoors": """
        yoga pilates barre gym home travel outdoor indoor trail mountain road gravel track
        marathon sprint hiking camping backpacking climbing bouldering kayak canoe paddle
        surf swim dive snorkel ski snowboard skate cycling bmx tennis squash badminton golf
        soccer rugby hockey lacrosse volleyball baseball softball boxing wrestling karate
        judo crossfit spin rowing walking running jogging fishing fly hunting archery
        tactical military ultralight lightweight heavy compact foldable collapsible portable
        insulated waterproof breathable thermal reflective cooling heated padded ergonomic
        kids youth junior womens mens unisex senior beginner pro competition training
        recovery rehab balance agility stretch core cardio endurance summer winter alpine
        desert coastal forest urban commuter touring racing
    """,
}

# Syllables that brand and product-line names are made of: real catalogs hold hundreds of
# brands, a few of them common; the bundled lists above stay the most common ones.
NAME_SYLLABLES = """
    ar bel cor dun el fen gar hal ion jor kel lum mar nor ost pra quin ros sol tar ul
    ver wyn xan yor zel ka mi to ra ne vi lo sa de ri fa go hu ze ty bo na ex on an
"""
