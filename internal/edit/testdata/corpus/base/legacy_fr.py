# -*- coding: latin-1 -*-
"""Outils de facturation (fichier historique en ISO-8859-1)."""

TVA = 0.20


def montant_ttc(ht):
    """Renvoie le montant toutes taxes comprises."""
    return round(ht * (1 + TVA), 2)


def libelle(client, montant):
    # Le libellé apparaît sur la facture imprimée
    return "Facture pour %s : %.2f euros" % (client, montant)


def echeance(jours=30):
    """Nombre de jours avant l'échéance du paiement."""
    if jours <= 0:
        raise ValueError("le délai doit être positif")
    return jours
